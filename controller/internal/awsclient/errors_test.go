package awsclient

import (
	"errors"
	"fmt"
	"testing"

	"github.com/aws/smithy-go"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		err      error
		outcome  string
		throttle bool
	}{
		{nil, "success", false},
		{&smithy.GenericAPIError{Code: "Throttling", Message: "Rate exceeded"}, "throttled", true},
		{fmt.Errorf("wrapped: %w", &smithy.GenericAPIError{Code: "RequestLimitExceeded"}), "throttled", true},
		{&smithy.GenericAPIError{Code: "TargetGroupNotFound"}, "error", false},
		{errors.New("dial tcp: refused"), "error", false},
	}
	for _, tt := range tests {
		if got := Outcome(tt.err); got != tt.outcome || IsThrottle(tt.err) != tt.throttle {
			t.Errorf("%v: outcome %s throttle %v", tt.err, got, IsThrottle(tt.err))
		}
	}
	if !IsTargetGroupNotFound(&smithy.GenericAPIError{Code: "TargetGroupNotFound"}) {
		t.Error("TargetGroupNotFound")
	}
}
