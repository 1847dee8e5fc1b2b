package fakeaws

import (
	"net/http"

	"github.com/restartsim/restartsim/fakeaws/internal/clip"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/sigv4"
)

// signingName is the SigV4 service name of a service.
var signingName = map[string]string{ServiceELBv2: "elasticloadbalancing", ServiceEC2: "ec2", ServiceSTS: "sts", ServiceIAM: "iam",
	ServiceSSM: "ssm", ServiceEKS: "eks", ServiceACM: "acm"}

// precheck checks what a Query (or admin) request's headers alone decide: the signature's format, key,
// date and region. It returns nil when the body is worth reading.
func (s *Server) precheck(r *http.Request) *sigv4.Failure {
	scope, f := s.verifier.Precheck(r)
	if f == nil && !s.regionOK(scope) {
		f = wrongRegion(scope.Region)
	}
	return f
}

// regionOK reports whether a request may be signed for its scope's region: the server's, or for IAM, a
// global service, also us-east-1 (globalScope), where AWS signs it whatever the client's region.
func (s *Server) regionOK(scope sigv4.Scope) bool {
	if scope.Service == signingName[ServiceIAM] {
		return s.globalScope(scope.Region)
	}
	return scope.Region == s.opts.Region
}

func wrongRegion(region string) *sigv4.Failure {
	return &sigv4.Failure{Kind: sigv4.BadSignature, Message: "Credential should be scoped to a valid region, not '" + clip.String(region) + "'."}
}

// authenticate verifies SigV4 and maps failures to the service's error code.
func (s *Server) authenticate(r *http.Request, body []byte, service string) *query.Error {
	scope, f := s.verifier.Verify(r, sigv4.PayloadHash(body), false)
	switch {
	case f != nil:
	case !s.regionOK(scope):
		f = wrongRegion(scope.Region)
	case service != "" && scope.Service != signingName[service]:
		f = &sigv4.Failure{Kind: sigv4.BadSignature, Message: "Credential should be scoped to correct service: '" + signingName[service] + "'."}
	default:
		return nil
	}
	return authError(f, service)
}

// authError maps an authentication failure to the error code of the service (EC2 words several
// differently).
func authError(f *sigv4.Failure, service string) *query.Error {
	ec2Style := service == ServiceEC2
	switch f.Kind {
	case sigv4.Missing:
		return query.NewError("MissingAuthenticationToken", f.Message)
	case sigv4.Malformed:
		return query.NewError("IncompleteSignature", f.Message)
	case sigv4.UnknownKey:
		if ec2Style {
			return query.Errorf("AuthFailure", "AWS was not able to validate the provided access credentials")
		}
		return query.NewError("InvalidClientTokenId", f.Message)
	case sigv4.Expired:
		if ec2Style {
			return query.Errorf("RequestExpired", "Request has expired.")
		}
		return query.NewError("SignatureDoesNotMatch", f.Message)
	default:
		if ec2Style {
			return query.Errorf("AuthFailure", "AWS was not able to validate the provided access credentials")
		}
		return query.NewError("SignatureDoesNotMatch", f.Message)
	}
}
