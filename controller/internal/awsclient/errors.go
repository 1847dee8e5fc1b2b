package awsclient

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"

	"github.com/restartsim/restartsim/controller/internal/metrics"
)

// ErrorCode returns the AWS error code of err, or "".
func ErrorCode(err error) string {
	var apiErr smithy.APIError
	if errors.As(err, &apiErr) {
		return apiErr.ErrorCode()
	}
	return ""
}

// IsThrottle reports whether err is an AWS throttling error, by the same codes the SDK's standard
// retryer treats as throttling (ELB `Throttling`, EC2 `RequestLimitExceeded`, ...).
func IsThrottle(err error) bool {
	_, ok := retry.DefaultThrottleErrorCodes[ErrorCode(err)]
	return ok
}

// IsTargetGroupNotFound reports whether err says the target group does not exist.
func IsTargetGroupNotFound(err error) bool { return ErrorCode(err) == "TargetGroupNotFound" }

// IsInvalidTarget reports whether err says a target is not valid (e.g. the instance is gone).
func IsInvalidTarget(err error) bool { return ErrorCode(err) == "InvalidTarget" }

// IsDuplicatePermission reports an AuthorizeSecurityGroupIngress for a rule that exists.
func IsDuplicatePermission(err error) bool { return ErrorCode(err) == "InvalidPermission.Duplicate" }

// IsPermissionNotFound reports a RevokeSecurityGroupIngress for a rule that does not exist.
func IsPermissionNotFound(err error) bool { return ErrorCode(err) == "InvalidPermission.NotFound" }

// Outcome maps an error to the tgb_aws_requests_total outcome label.
func Outcome(err error) string {
	switch {
	case err == nil:
		return metrics.OutcomeSuccess
	case IsThrottle(err):
		return metrics.OutcomeThrottled
	default:
		return metrics.OutcomeError
	}
}
