package fakeaws_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// rawAnswer sends one raw request on a new connection and returns the status code and body.
func rawAnswer(t *testing.T, addr, req string) (int, string) {
	t.Helper()
	c := dialAndWrite(t, addr, req)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestOddAuthorizationBytesGetXMLErrors: an Authorization header with the bytes a header value may hold
// beyond printable ASCII (a tab, obs-text 0x80-0xff) reaches the handlers and is refused with an AWS XML
// error an SDK parses, on each wire protocol. Other control bytes never reach a handler: net/textproto
// refuses the header line while Go's server reads it, which then answers its own plain-text 400, and
// Go's client (the SDK's transport) refuses to send them, so no SDK sees that answer; the last case
// pins that behaviour.
func TestOddAuthorizationBytesGetXMLErrors(t *testing.T) {
	_, addr := startLoopback(t, fakeaws.Options{})
	day := time.Now().UTC().Format("20060102")
	auth := func(service, odd string) string {
		return fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s/us-west-2/%s/aws4_request,%s SignedHeaders=host;x-amz-date, Signature=%s%s",
			testKey, day, service, odd, strings.Repeat("0", 64), odd)
	}
	request := func(line, service, odd string) string {
		return fmt.Sprintf("%s HTTP/1.1\r\nHost: %s\r\nX-Amz-Date: %sT000000Z\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
			"Content-Length: 0\r\nAuthorization: %s\r\n\r\n", line, addr, day, auth(service, odd))
	}
	for _, proto := range []struct{ name, line, service, root string }{
		{"query", "POST /?Action=DescribeTargetGroups&Version=2015-12-01", "elasticloadbalancing", "<ErrorResponse"},
		{"ec2", "POST /?Action=DescribeInstances&Version=2016-11-15", "ec2", "<Response><Errors><Error>"},
		{"route53", "GET /2013-04-01/hostedzone", "route53", "<ErrorResponse"},
		{"s3", "GET /bucket", "s3", "<Error>"},
	} {
		for _, odd := range []string{"\t", "\xff", "\x80\xfe"} {
			t.Run(fmt.Sprintf("%s %q", proto.name, odd), func(t *testing.T) {
				code, body := rawAnswer(t, addr, request(proto.line, proto.service, odd))
				if code < 400 || code >= 500 || !strings.Contains(body, proto.root) || !strings.Contains(body, "<Code>") {
					t.Errorf("%d %q, want a 4xx AWS XML error (%s ... <Code>)", code, body, proto.root)
				}
			})
		}
	}
	t.Run("control byte", func(t *testing.T) {
		code, body := rawAnswer(t, addr, request("POST /?Action=DescribeTargetGroups&Version=2015-12-01", "elasticloadbalancing", "\x01"))
		if code != http.StatusBadRequest || !strings.HasPrefix(body, "400 Bad Request") || strings.Contains(body, "<") {
			t.Errorf("%d %q, want net/http's own 400 (the handler never sees the request)", code, body)
		}
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", nil)
		req.Header.Set("Authorization", auth("elasticloadbalancing", "\x01"))
		if resp, err := http.DefaultClient.Do(req); err == nil || !strings.Contains(err.Error(), "invalid header field value") {
			if resp != nil {
				resp.Body.Close()
			}
			t.Errorf("Go's client sent a control byte in Authorization (error %v)", err)
		}
	})
}
