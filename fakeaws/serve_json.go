package fakeaws

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/acm"
	"github.com/restartsim/restartsim/fakeaws/internal/eks"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/sigv4"
	"github.com/restartsim/restartsim/fakeaws/internal/ssm"
)

// Service names as recorded (also their SigV4 signing names).
const (
	ServiceSSM = "ssm"
	ServiceEKS = "eks"
	// ServiceACM is AWS Certificate Manager's.
	ServiceACM = "acm"
)

// isACM reports whether r is an ACM request: AWS JSON 1.1 names its operation in X-Amz-Target.
func isACM(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("X-Amz-Target"), acm.TargetPrefix)
}

// jsonServiceOf is the JSON service a request is signed for, or "".
func jsonServiceOf(r *http.Request) string {
	scope, _ := sigv4.ParseScope(r)
	if scope.Service == ServiceSSM || scope.Service == ServiceEKS {
		return scope.Service
	}
	if strings.HasPrefix(r.Header.Get("X-Amz-Target"), ssm.TargetPrefix) {
		return ServiceSSM
	}
	return ""
}

// jsonReq is the state of one request to a JSON service (ACM's and SSM's AWS JSON 1.1, EKS's REST-JSON).
type jsonReq struct {
	s     *Server
	w     http.ResponseWriter
	start time.Time
	call  Call
}

// fail answers an error as the JSON protocols carry it: the code in X-Amzn-ErrorType and in the body's
// __type, the message in the body.
func (c *jsonReq) fail(e *query.Error, outcome string) {
	c.w.Header().Set("X-Amzn-ErrorType", e.Code)
	c.write(e.Status(), query.JSONErrorBody(e.Code, e.Message), outcome, e.Code)
}

func (c *jsonReq) write(status int, body []byte, outcome, code string) {
	ct := "application/json"
	if c.call.Service == ServiceSSM || c.call.Service == ServiceACM {
		ct = "application/x-amz-json-1.1"
	}
	c.w.Header().Set("Content-Type", ct)
	c.w.Header().Set("X-Amzn-RequestId", c.call.RequestID)
	c.w.WriteHeader(status)
	_, _ = c.w.Write(body)
	c.call.Outcome, c.call.ErrorCode, c.call.HTTPStatus = outcome, code, status
	c.call.Latency = c.s.clock.Now().Sub(c.start)
	c.s.observe(c.call)
}

// serveJSON answers one ACM, SSM or EKS request: authenticated (headers first, then the body's hash),
// admitted by faults and the throttle, then served. Every answer is recorded once; an operation the service
// does not know is recorded as "unknown", so that a client's made-up names cannot grow the recorder's names.
func (s *Server) serveJSON(w http.ResponseWriter, r *http.Request, service string) {
	c := &jsonReq{s: s, w: w, start: s.clock.Now()}
	c.call = Call{Time: c.start, RequestID: s.newRequestID(), Service: service, Operation: "unknown"}
	serve, rerr := s.jsonHandler(r, service, &c.call)
	if f := s.precheck(r); f != nil {
		defer s.bodies.refuse(w, r)()
		c.fail(authError(f, service), OutcomeError)
		return
	}
	held, err := s.bodies.read(w, r, s.opts.MaxBodyBytes)
	defer held.release()
	if err != nil {
		defer s.bodies.refuse(w, r)()
		c.fail(bodyFailure(err, s.opts.MaxBodyBytes), OutcomeError)
		return
	}
	if e := s.authenticate(r, held.data, service); e != nil {
		c.fail(e, OutcomeError)
		return
	}
	if rerr != nil {
		c.fail(rerr, OutcomeError)
		return
	}
	if c.admit(r.Context()) {
		c.dispatch(func() (any, error) { return serve(held.data) })
	}
}

// jsonHandler finds the operation a JSON request names (X-Amz-Target, or EKS's method and path), names it in
// call when the service knows it, and returns what serves it with the request's body.
func (s *Server) jsonHandler(r *http.Request, service string, call *Call) (func(body []byte) (any, error), *query.Error) {
	if service == ServiceEKS {
		route, err := eks.Resolve(r.Method, r.URL.EscapedPath())
		call.Operation = route.Operation
		return func([]byte) (any, error) { return s.eks.DescribeCluster(route.Name) }, err
	}
	target := r.Header.Get("X-Amz-Target")
	unknown := query.Errorf("UnknownOperationException", "Unknown operation %s", target)
	if service == ServiceACM {
		op := strings.TrimPrefix(target, acm.TargetPrefix)
		h, ok := s.acm.Lookup(op)
		if !ok {
			return nil, unknown
		}
		call.Operation = op
		return func(body []byte) (any, error) { return h(s.clock.Now(), body) }, nil
	}
	op := strings.TrimPrefix(target, ssm.TargetPrefix)
	h, ok := s.ssm.Lookup(op)
	if !ok {
		return nil, unknown
	}
	call.Operation = op
	return h, nil
}

func (c *jsonReq) dispatch(serve func() (any, error)) {
	out, err := serve()
	if err != nil {
		var qe *query.Error
		if !errors.As(err, &qe) {
			qe = query.Errorf("InternalFailure", "%v", err)
		}
		c.fail(qe, OutcomeError)
		return
	}
	body, err := json.Marshal(out)
	if err != nil {
		c.fail(query.Errorf("InternalFailure", "encoding the response: %v", err), OutcomeError)
		return
	}
	c.write(http.StatusOK, body, OutcomeOK, "")
}

// admit applies the injected faults and the service's bucket, answering an outage, a throttled call or an
// injected error itself (then it returns false).
func (c *jsonReq) admit(ctx context.Context) bool {
	if e, outcome := c.s.admission(ctx, &c.call, "ServiceUnavailableException", "ThrottlingException"); e != nil {
		c.fail(e, outcome)
		return false
	}
	return true
}
