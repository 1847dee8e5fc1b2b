package fakeaws_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/restartsim/restartsim/fakeaws"
)

// GetCallerIdentity through the real STS client: signed for "sts", it is served as STS (not guessed as EC2 from
// its Version), names the account that owns fakeaws's resources, and is recorded, counted and charged to
// STS's bucket.
func TestGetCallerIdentity(t *testing.T) {
	e := newEnv(t, fakeaws.Options{AccountID: "210987654321", Profile: fakeaws.ProfileAWSDocumented})
	out, err := sts.NewFromConfig(e.cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil {
		t.Fatal(err)
	}
	tgARN := e.createTG(t, "identity", "ip", 80)
	if got := aws.ToString(out.Account); got != "210987654321" || !strings.Contains(tgARN, ":"+got+":") {
		t.Errorf("Account %q; a target group's ARN is %s", got, tgARN)
	}
	if got := aws.ToString(out.Arn); got != "arn:aws:iam::210987654321:user/restartsim" {
		t.Errorf("Arn %q", got)
	}
	if !regexp.MustCompile(`^AIDA[A-Z2-7]{17}$`).MatchString(aws.ToString(out.UserId)) {
		t.Errorf("UserId %q is not an IAM user's unique ID", aws.ToString(out.UserId))
	}
	again, err := sts.NewFromConfig(e.cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	if err != nil || aws.ToString(again.UserId) != aws.ToString(out.UserId) {
		t.Errorf("a second call named user %q (%v), the first %q", aws.ToString(again.UserId), err, aws.ToString(out.UserId))
	}

	var c fakeaws.Call
	for _, rc := range e.srv.Recorder().Calls() {
		if rc.Service == fakeaws.ServiceSTS {
			c = rc
			break
		}
	}
	if c.Operation != "GetCallerIdentity" || c.Outcome != fakeaws.OutcomeOK || c.HTTPStatus != 200 || c.Bucket != fakeaws.CategorySTS {
		t.Errorf("recorded %+v", c)
	}
	if err := testutil.GatherAndCompare(e.srv.Gatherer(), strings.NewReader(`
# HELP fakeaws_requests_total Requests served, by service, operation and AWS error code ("OK" for success).
# TYPE fakeaws_requests_total counter
fakeaws_requests_total{code="OK",operation="CreateTargetGroup",service="elbv2"} 1
fakeaws_requests_total{code="OK",operation="GetCallerIdentity",service="sts"} 2
`), "fakeaws_requests_total"); err != nil {
		t.Error(err)
	}
}

// STS's errors come in its own document and codes: bad credentials, an action or version STS does not have,
// and its quota.
func TestSTSErrors(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileAWSDocumented})
	for _, tc := range []struct{ name, key, secret, code string }{
		{"unknown key", "AKIDOTHER", testSecret, "InvalidClientTokenId"},
		{"wrong secret", testKey, "wrong", "SignatureDoesNotMatch"},
	} {
		_, err := sts.NewFromConfig(clientConfig(e.http.URL, tc.key, tc.secret)).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		wantCode(t, err, tc.code)
		if httpStatus(err) != 403 {
			t.Errorf("%s: status of %v", tc.name, err)
		}
	}
	for _, rewrite := range [][2]string{{"Action=GetCallerIdentity", "Action=DescribeVpcs"}, {"Version=2011-06-15", "Version=2016-11-15"}} {
		client := sts.NewFromConfig(e.cfg, func(o *sts.Options) { o.APIOptions = append(o.APIOptions, rewriteBody(rewrite[0], rewrite[1])) })
		_, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
		wantCode(t, err, "InvalidAction")
	}

	e.srv.SetLimit(fakeaws.CategorySTS, 0, 1)
	client := sts.NewFromConfig(e.cfg)
	if _, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err != nil {
		t.Fatal(err)
	}
	_, err := client.GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{})
	wantCode(t, err, "Throttling")
	if c := e.srv.Recorder().Calls(); c[len(c)-1].Outcome != fakeaws.OutcomeThrottled || c[len(c)-1].Service != fakeaws.ServiceSTS {
		t.Errorf("recorded %+v", c[len(c)-1])
	}
}

// An unsigned GetCallerIdentity is refused the way STS refuses it: 403 MissingAuthenticationToken in STS's
// error document, recorded as an STS call.
func TestSTSUnsigned(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/", strings.NewReader("Action=GetCallerIdentity&Version=2011-06-15"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b := readAll(t, resp)
	if resp.StatusCode != 403 || !strings.Contains(b, "<Code>MissingAuthenticationToken</Code>") ||
		!strings.Contains(b, `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">`) {
		t.Errorf("status %d body %s", resp.StatusCode, b)
	}
	if c := e.srv.Recorder().Calls(); len(c) != 1 || c[0].Service != fakeaws.ServiceSTS || c[0].ErrorCode != "MissingAuthenticationToken" {
		t.Errorf("recorded %+v", c)
	}
}
