package awsclient

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/smithy-go/logging"
	"github.com/go-logr/logr/funcr"

	"github.com/restartsim/restartsim/internal/throttlespec"
)

// The SDK's own messages go to the controller's logger at V(1), not to stderr: a warning about
// an undrained response body must not land in the middle of a terminal's progress line.
func TestSDKMessagesReachTheLoggerAtDebug(t *testing.T) {
	thr, err := throttlespec.ParseWithDefaults("")
	if err != nil {
		t.Fatal(err)
	}
	for _, verbosity := range []int{0, 1} {
		var lines []string
		log := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: verbosity})
		c, err := NewClients(context.Background(), Config{Region: "us-west-2", Endpoint: "http://127.0.0.1:9", AccessKeyID: "a",
			SecretAccessKey: "b", MaxAttempts: 1, Throttle: thr, Logger: log}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []logging.Logger{c.ELBV2.Options().Logger, c.EC2.Options().Logger} {
			l.Logf(logging.Warn, "failed to discard remaining HTTP response body, this may affect connection reuse")
		}
		got := strings.Join(lines, "\n")
		if verbosity == 0 && got != "" {
			t.Errorf("at verbosity 0 the SDK's warning was logged: %s", got)
		}
		if verbosity == 1 && (len(lines) != 2 || !strings.Contains(got, "failed to discard remaining HTTP response body") || !strings.Contains(got, `"sdkLevel"="WARN"`)) {
			t.Errorf("at verbosity 1: %q, want both clients' warnings with sdkLevel WARN", lines)
		}
	}
}
