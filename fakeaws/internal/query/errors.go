package query

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/restartsim/restartsim/fakeaws/internal/clip"
)

// Error is an AWS service error: a code from the table below and a message.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Status is the HTTP status AWS uses for this error code.
func (e *Error) Status() int { return StatusOf(e.Code) }

// Errorf builds an *Error. String-like arguments are clipped (clip.MaxEcho bytes), because they are what
// messages echo of a client's input.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, clip.Args(args)...)}
}

// NewError builds an *Error from a message already composed, whose input is already clipped.
func NewError(code, message string) *Error { return &Error{Code: code, Message: message} }

// statusByCode is the one place that maps every error code fakeaws returns to its HTTP status. Codes not listed
// are client errors (400), as for most AWS error codes.
var statusByCode = map[string]int{
	// Auth (both services).
	"MissingAuthenticationToken": http.StatusForbidden,
	"IncompleteSignature":        http.StatusForbidden,
	"InvalidClientTokenId":       http.StatusForbidden,
	"SignatureDoesNotMatch":      http.StatusForbidden,
	"AuthFailure":                http.StatusUnauthorized, // EC2
	"RequestExpired":             http.StatusBadRequest,   // EC2: X-Amz-Date outside the clock skew
	"RequestTimeTooSkewed":       http.StatusForbidden,    // S3
	"AccessDenied":               http.StatusForbidden,    // S3 and admin
	// Throttling: ELB answers 400 Throttling, EC2 503 RequestLimitExceeded.
	"Throttling":           http.StatusBadRequest,
	"RequestLimitExceeded": http.StatusServiceUnavailable,
	// Server-side faults.
	"InternalFailure":    http.StatusInternalServerError,
	"InternalError":      http.StatusInternalServerError, // EC2 spelling
	"ServiceUnavailable": http.StatusServiceUnavailable,
	"Unavailable":        http.StatusServiceUnavailable, // EC2 spelling
	// IAM.
	"NoSuchEntity":        http.StatusNotFound,
	"EntityAlreadyExists": http.StatusConflict,
	"LimitExceeded":       http.StatusConflict,
	"DeleteConflict":      http.StatusConflict,
	// The JSON services (SSM, EKS); their other codes are 400s.
	"ResourceNotFoundException":   http.StatusNotFound,
	"ServiceUnavailableException": http.StatusServiceUnavailable,
	"InternalServerError":         http.StatusInternalServerError,
	// Generic request errors.
	"InvalidAction":               http.StatusBadRequest,
	"MissingAction":               http.StatusBadRequest,
	"MissingParameter":            http.StatusBadRequest,
	"ValidationError":             http.StatusBadRequest,
	"InvalidParameterValue":       http.StatusBadRequest,
	"InvalidParameterCombination": http.StatusBadRequest,
	"MalformedQueryString":        http.StatusBadRequest,
	"RequestEntityTooLarge":       http.StatusRequestEntityTooLarge,
	"DryRunOperation":             http.StatusPreconditionFailed,
	"OperationNotPermitted":       http.StatusBadRequest,
	"InvalidPaginationToken":      http.StatusBadRequest,
	"InvalidNextToken":            http.StatusBadRequest, // unused spelling kept for completeness
	"UnsupportedOperation":        http.StatusBadRequest,
	"InvalidInput":                http.StatusBadRequest,
	"InvalidRequest":              http.StatusBadRequest,
	"InvalidID":                   http.StatusBadRequest,
	"NotFound":                    http.StatusNotFound, // admin API
	// S3 refusals written by fakeaws itself (gofakes3 maps its own codes).
	"EntityTooLarge":  http.StatusBadRequest,
	"TooManyBuckets":  http.StatusBadRequest,
	"KeyTooLongError": http.StatusBadRequest,
	"IncompleteBody":  http.StatusBadRequest,
	"RequestTimeout":  http.StatusBadRequest,
	"SlowDown":        http.StatusServiceUnavailable,
	// S3 has no storage quota; S3 on Outposts, which has one, answers a full Outpost with
	// InsufficientCapacity and 507 Insufficient Storage (S3 error responses, "Amazon S3 on Outposts error
	// codes"). Not retried by the SDKs, unlike 503 SlowDown: a full store does not empty itself.
	"InsufficientCapacity": http.StatusInsufficientStorage,
	// ELBv2.
	"TargetGroupNotFound":         http.StatusBadRequest,
	"LoadBalancerNotFound":        http.StatusBadRequest,
	"InvalidTarget":               http.StatusBadRequest,
	"TooManyTargets":              http.StatusBadRequest,
	"TooManyTargetGroups":         http.StatusBadRequest,
	"TooManyTags":                 http.StatusBadRequest,
	"DuplicateTagKeys":            http.StatusBadRequest,
	"DuplicateTargetGroupName":    http.StatusBadRequest,
	"ResourceInUse":               http.StatusBadRequest,
	"InvalidConfigurationRequest": http.StatusBadRequest,
	"DuplicateLoadBalancerName":   http.StatusBadRequest,
	"TooManyLoadBalancers":        http.StatusBadRequest,
	"SubnetNotFound":              http.StatusBadRequest,
	"InvalidSubnet":               http.StatusBadRequest,
	"InvalidSecurityGroup":        http.StatusBadRequest,
	"InvalidScheme":               http.StatusBadRequest,
	"DuplicateListener":           http.StatusBadRequest,
	"ListenerNotFound":            http.StatusBadRequest,
	"TooManyListeners":            http.StatusBadRequest,
	"CertificateNotFound":         http.StatusBadRequest,
	"TooManyCertificates":         http.StatusBadRequest,
	"IncompatibleProtocols":       http.StatusBadRequest,
	"InvalidLoadBalancerAction":   http.StatusBadRequest,
	"TargetGroupAssociationLimit": http.StatusBadRequest,
	"RuleNotFound":                http.StatusBadRequest,
	"PriorityInUse":               http.StatusBadRequest,
	"TooManyRules":                http.StatusBadRequest,
	"TrustStoreNotFound":          http.StatusBadRequest,
	// EC2.
	"InvalidGroup.NotFound":               http.StatusBadRequest,
	"InvalidGroup.Duplicate":              http.StatusBadRequest,
	"InvalidGroupId.Malformed":            http.StatusBadRequest,
	"InvalidPermission.Duplicate":         http.StatusBadRequest,
	"InvalidPermission.NotFound":          http.StatusBadRequest,
	"InvalidPermission.Malformed":         http.StatusBadRequest,
	"RulesPerSecurityGroupLimitExceeded":  http.StatusBadRequest,
	"DependencyViolation":                 http.StatusBadRequest,
	"InvalidVpcID.NotFound":               http.StatusBadRequest,
	"InvalidInstanceID.NotFound":          http.StatusBadRequest,
	"InvalidInstanceID.Malformed":         http.StatusBadRequest,
	"InvalidNetworkInterfaceID.NotFound":  http.StatusBadRequest,
	"InvalidNetworkInterfaceID.Malformed": http.StatusBadRequest,
	"InvalidNetworkInterface.InUse":       http.StatusBadRequest,
	"InvalidFilter":                       http.StatusBadRequest,
	"TagLimitExceeded":                    http.StatusBadRequest,
	"InvalidSubnetID.NotFound":            http.StatusBadRequest,
	"InvalidSubnet.Range":                 http.StatusBadRequest,
	// Route53.
	"NoSuchHostedZone":        http.StatusNotFound,
	"NoSuchChange":            http.StatusNotFound,
	"NoSuchHealthCheck":       http.StatusNotFound,
	"NoSuchDelegationSet":     http.StatusBadRequest,
	"HostedZoneAlreadyExists": http.StatusConflict,
	"HostedZoneNotEmpty":      http.StatusBadRequest,
	"InvalidChangeBatch":      http.StatusBadRequest,
	"InvalidDomainName":       http.StatusBadRequest,
	"InvalidVPCId":            http.StatusBadRequest,
	"TooManyHostedZones":      http.StatusBadRequest,
	"PriorRequestNotComplete": http.StatusBadRequest,
	// S3 (the answers fakeaws gives itself rather than through gofakes3).
	"BucketAlreadyOwnedByYou": http.StatusConflict,
	"NoSuchBucket":            http.StatusNotFound,
	"NoSuchTagSet":            http.StatusNotFound,
	"NotImplemented":          http.StatusNotImplemented,
}

// StatusOf returns the HTTP status for an error code (400 when the code is not in the table).
func StatusOf(code string) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	return http.StatusBadRequest
}

// IsServerFault reports whether the code is a server-side (5xx) fault; ELB marks those Type=Receiver.
func IsServerFault(code string) bool { return StatusOf(code) >= 500 }

// KnownCodes lists every code in the table (for tests).
func KnownCodes() []string {
	out := make([]string, 0, len(statusByCode))
	for c := range statusByCode {
		out = append(out, c)
	}
	return out
}

// JSONErrorBody is an error document of the AWS JSON protocols (ACM, SSM, EKS): the code in __type, the
// message in message.
func JSONErrorBody(code, message string) []byte {
	b, err := json.Marshal(struct {
		Type    string `json:"__type"`
		Message string `json:"message"`
	}{code, message})
	if err != nil { // two strings always encode
		panic(err)
	}
	return b
}
