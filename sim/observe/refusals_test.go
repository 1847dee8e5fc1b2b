package observe

import (
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// calls makes one call a second from t0: 'r' refused for its signing region, 'k' refused for its key,
// 't' throttled, 'n' not found (neither), 'o' ok, '5' a server error.
func calls(pattern string) []fakeaws.Call {
	var out []fakeaws.Call
	for i, p := range pattern {
		c := fakeaws.Call{Time: t0.Add(time.Duration(i) * time.Second), Service: "route53", Operation: "ListHostedZones",
			Outcome: fakeaws.OutcomeError, HTTPStatus: 403}
		switch p {
		case 'r':
			c.ErrorCode, c.ErrorMessage = "SignatureDoesNotMatch", "Credential should be scoped to a valid region, not 'eu-west-1'."
		case 'k':
			c.ErrorCode, c.ErrorMessage, c.Service, c.Operation = "InvalidClientTokenId", "The security token included in the request is invalid.", "elbv2", "DescribeTargetGroups"
		case 't':
			c.Outcome, c.ErrorCode, c.HTTPStatus = fakeaws.OutcomeThrottled, "Throttling", 400
		case 'n':
			c.ErrorCode, c.HTTPStatus = "NoSuchHostedZone", 404
		case 'o':
			c.Outcome, c.HTTPStatus = fakeaws.OutcomeOK, 200
		case '5':
			c.ErrorCode, c.HTTPStatus = "ServiceUnavailable", 503
		}
		out = append(out, c)
	}
	return out
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, pattern string
		stalled       bool
		want          []string
	}{
		{"all refused", "rrrrrrrrrrrr", true, []string{"all of its 12 calls for 10s", "SignatureDoesNotMatch (route53 ListHostedZones) ×12",
			"not 'eu-west-1'", `signed for region "eu-west-1"; fakeaws serves "us-west-2"`}},
		{"refused and not found", "rnrnrnrnrnrn", true, []string{"all of its 6 calls", "×6"}},
		{"two codes", "krkrkrkrkrkr", true, []string{"InvalidClientTokenId (elbv2 DescribeTargetGroups) ×6: The security token included in the request is invalid; SignatureDoesNotMatch (route53 ListHostedZones) ×6",
			`signed for region "eu-west-1"`}},
		{"throttled re-reads", "tttttttttttt", false, nil},
		{"refused, then throttled", "rrrrrrrrrrrt", false, nil},
		{"mixed with throttling", "rtrtrtrtrtrt", false, nil},
		{"a success in the window", "rrrrrrrorrrr", false, nil},
		{"server errors", "r5r5r5r5r5r5", false, nil},
		{"too short", "rrrrrr", false, nil},
		{"not found only", "nnnnnnnnnnnn", false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Refusals{Window: 10 * time.Second, MinCalls: 5, Region: "us-west-2"}
			cs := calls(tc.pattern)
			d.Add(cs)
			err := d.Stalled(cs[len(cs)-1].Time)
			if (err != nil) != tc.stalled {
				t.Fatalf("Stalled = %v, want stalled %v", err, tc.stalled)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// Refusals that stop count from their first: a long quiet spell after them still stalls, and a throttled call
// ends them.
func TestRefusalsAcrossBatches(t *testing.T) {
	d := &Refusals{Window: 10 * time.Second, MinCalls: 3, Region: "us-west-2"}
	d.Add(calls("kkk"))
	if err := d.Stalled(t0.Add(5 * time.Second)); err != nil {
		t.Fatalf("stalled after 5 s: %v", err)
	}
	err := d.Stalled(t0.Add(11 * time.Second))
	if err == nil || !strings.Contains(err.Error(), "access key is not fakeaws's") {
		t.Fatalf("after 11 s: %v, want the credentials named", err)
	}
	d.Add(calls("t"))
	if err := d.Stalled(t0.Add(20 * time.Second)); err != nil {
		t.Fatalf("stalled after a throttled call: %v", err)
	}
}
