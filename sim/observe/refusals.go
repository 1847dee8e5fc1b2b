package observe

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// refusalCodes are the AWS error codes a retry cannot get past: the request's signature or credentials,
// an operation the endpoint does not serve, or input AWS rejects.
var refusalCodes = map[string]string{
	"SignatureDoesNotMatch": "signature", "IncompleteSignature": "signature", "InvalidSignatureException": "signature",
	"MissingAuthenticationToken": "auth", "InvalidClientTokenId": "auth", "AuthFailure": "auth", "InvalidAccessKeyId": "auth",
	"UnrecognizedClientException": "auth", "AccessDenied": "auth", "AccessDeniedException": "auth", "ExpiredToken": "auth",
	"RequestExpired": "auth", "InvalidAction": "operation", "UnknownOperationException": "operation",
	"ValidationError": "validation", "ValidationException": "validation", "InvalidParameterValue": "validation",
	"InvalidParameterCombination": "validation", "MissingParameter": "validation", "InvalidInput": "validation",
	"InvalidChangeBatch": "validation", "MalformedXML": "validation", "InvalidArgument": "validation",
}

// Refusals watches a controller's AWS calls for a run that cannot progress: every call it made for at
// least Window refused (signature, credentials, unknown operation, validation). A call that succeeds, is
// throttled (slow is not stuck) or fails on the server's side resets it; other client errors (a describe
// of what does not exist yet) neither count nor reset.
type Refusals struct {
	// Window is how long only refusals must last. MinCalls is how many there must be at least.
	Window   time.Duration
	MinCalls int
	// Region is fakeaws's region, for the fix of a refusal of the signing region.
	Region string

	// active is when the last call that succeeded, was throttled or failed on the server's side was made
	// (Start before any).
	Start  time.Time
	active time.Time
	since  time.Time // the first refusal since the last call that was not one
	count  int
	codes  []refusedCode
	lastAt time.Time
}

type refusedCode struct {
	service, operation, code, message string
	n                                 int
}

// Add takes calls in record order.
func (d *Refusals) Add(calls []fakeaws.Call) {
	for _, c := range calls {
		if c.Service == "admin" || c.Service == "" {
			continue
		}
		d.lastAt = c.Time
		if c.Outcome != fakeaws.OutcomeError || c.HTTPStatus >= 500 {
			d.since, d.count, d.codes, d.active = time.Time{}, 0, nil, c.Time
			continue
		}
		if _, ok := refusalCodes[c.ErrorCode]; !ok {
			continue
		}
		if d.count == 0 {
			d.since = c.Time
		}
		d.count++
		d.note(c)
	}
}

func (d *Refusals) note(c fakeaws.Call) {
	for i := range d.codes {
		if d.codes[i].code == c.ErrorCode && d.codes[i].message == c.ErrorMessage {
			d.codes[i].n++
			return
		}
	}
	d.codes = append(d.codes, refusedCode{service: c.Service, operation: c.Operation, code: c.ErrorCode, message: c.ErrorMessage, n: 1})
}

// Stalled returns, at now, the error that ends the run when every call for Window was refused; nil
// otherwise.
func (d *Refusals) Stalled(now time.Time) error {
	if d.count == 0 || d.count < max(d.MinCalls, 1) || now.Sub(d.since) < d.Window {
		return nil
	}
	return d.Refused()
}

// Quiet reports whether, at now, no call for Window succeeded, was throttled or failed on the server's side.
func (d *Refusals) Quiet(now time.Time) bool {
	last := d.active
	if d.Start.After(last) {
		last = d.Start
	}
	return now.Sub(last) >= d.Window
}

// Refused is what the refusals since the last other call amount to (nil without any), whatever their age.
func (d *Refusals) Refused() *RefusedError {
	if d.count == 0 {
		return nil
	}
	return &RefusedError{Since: d.since, Calls: d.count, Window: d.Window, Codes: d.summary(), Fix: d.fix()}
}

// RefusedError says that AWS refused every call of the controller for a while, and why.
type RefusedError struct {
	Since  time.Time
	Calls  int
	Window time.Duration
	// Codes are the first distinct errors: "Code (service Operation) ×n: message".
	Codes []string
	// Fix is what the harness knows to do about the first error, "" when nothing.
	Fix string
}

func (e *RefusedError) Error() string {
	msg := fmt.Sprintf("the controller makes no progress: AWS refused all of its %d calls for %s: %s",
		e.Calls, e.Window.Round(time.Second), strings.Join(e.Codes, "; "))
	if e.Fix != "" {
		msg += ". " + e.Fix
	}
	return msg
}

// maxCodes bounds the distinct errors an error names.
const maxCodes = 3

func (d *Refusals) summary() []string {
	var out []string
	for _, c := range d.codes[:min(len(d.codes), maxCodes)] {
		out = append(out, fmt.Sprintf("%s (%s %s) ×%d: %s", c.code, c.service, c.operation, c.n, strings.TrimSuffix(c.message, ".")))
	}
	if n := len(d.codes) - maxCodes; n > 0 {
		out = append(out, fmt.Sprintf("and %d more", n))
	}
	return out
}

var scopedRegion = regexp.MustCompile(`scoped to a valid region, not '([^']*)'`)

// fix says what to change for the first refusal the harness understands.
func (d *Refusals) fix() string {
	for _, c := range d.codes { // EC2 words a region refusal as AuthFailure, without the region
		if m := scopedRegion.FindStringSubmatch(c.message); m != nil {
			return fmt.Sprintf("Its requests are signed for region %q; fakeaws serves %q (global services such as "+
				"Route53 also us-east-1): give the controller the scenario's region ({{.Region}} in its command or AWS_REGION)", m[1], d.Region)
		}
	}
	for _, c := range d.codes {
		switch refusalCodes[c.code] {
		case "auth":
			return "Its access key is not fakeaws's: give the controller the harness's credentials " +
				"(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, which the harness sets; see docs/external-controllers.md)"
		case "signature":
			return "Its signature does not match: the controller's secret key is not fakeaws's " +
				"(AWS_SECRET_ACCESS_KEY, which the harness sets)"
		case "operation":
			return fmt.Sprintf("fakeaws does not serve %s %s", c.service, c.operation)
		}
	}
	return ""
}
