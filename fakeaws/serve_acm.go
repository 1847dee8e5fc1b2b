package fakeaws

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/acm"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// ServiceACM is AWS Certificate Manager's service name as recorded (and its SigV4 signing name).
const ServiceACM = "acm"

// isACM reports whether r is an ACM request: AWS JSON 1.1 names its operation in X-Amz-Target.
func isACM(r *http.Request) bool {
	return strings.HasPrefix(r.Header.Get("X-Amz-Target"), acm.TargetPrefix)
}

// acmCall is the state of one ACM request while it is served.
type acmCall struct {
	s     *Server
	w     http.ResponseWriter
	start time.Time
	call  Call
}

func (c *acmCall) fail(e *query.Error, outcome string) {
	c.write(e.Status(), query.JSONErrorBody(e.Code, e.Message), outcome, e.Code)
}

func (c *acmCall) write(status int, body []byte, outcome, code string) {
	c.w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	c.w.Header().Set("X-Amzn-RequestId", c.call.RequestID)
	c.w.WriteHeader(status)
	c.w.Write(body) //nolint:errcheck // the client may have gone
	c.call.Outcome, c.call.ErrorCode, c.call.HTTPStatus = outcome, code, status
	c.call.Latency = c.s.clock.Now().Sub(c.start)
	c.s.observe(c.call)
}

// serveACM answers one ACM request: authenticated like the Query services (headers, then the body's hash,
// signed for "acm" in the server's region), admitted by faults and the operation's bucket, then served.
func (s *Server) serveACM(w http.ResponseWriter, r *http.Request) {
	c := &acmCall{s: s, w: w, start: s.clock.Now()}
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), acm.TargetPrefix)
	c.call = Call{Time: c.start, RequestID: s.newRequestID(), Service: ServiceACM, Operation: "unknown"}
	handler, known := s.acm.Lookup(op)
	if known {
		c.call.Operation = op
	}
	if f := s.precheck(r); f != nil {
		defer s.bodies.refuse(w, r)()
		c.fail(authError(f, ServiceACM), OutcomeError)
		return
	}
	held, err := s.bodies.read(w, r, s.opts.MaxBodyBytes)
	defer held.release()
	if err != nil {
		defer s.bodies.refuse(w, r)()
		c.fail(acmBodyFailure(err, s.opts.MaxBodyBytes), OutcomeError)
		return
	}
	if e := s.authenticate(r, held.data, ServiceACM); e != nil {
		c.fail(e, OutcomeError)
		return
	}
	if !known {
		c.fail(query.Errorf("UnknownOperationException", "Unknown operation %s", op), OutcomeError)
		return
	}
	if !c.admit(r.Context()) {
		return
	}
	out, err := handler(s.clock.Now(), held.data)
	if err == nil {
		var body []byte
		if body, err = json.Marshal(out); err == nil {
			c.write(http.StatusOK, body, OutcomeOK, "")
			return
		}
	}
	var qe *query.Error
	if !errors.As(err, &qe) {
		qe = query.Errorf("InternalFailure", "%v", err)
	}
	c.fail(qe, OutcomeError)
}

func acmBodyFailure(err error, limit int64) *query.Error {
	switch {
	case errors.Is(err, errBodyTooLarge):
		return query.Errorf("RequestEntityTooLarge", "Request body exceeds %d bytes", limit)
	case errors.Is(err, errBodiesBusy):
		return query.Errorf("ServiceUnavailable", "The server is reading too many request bodies; retry")
	}
	return query.Errorf("SerializationException", "Could not read the request body")
}

// admit applies the injected faults and the operation's bucket; it answers an outage, a throttled call or an
// injected error itself and returns false.
func (c *acmCall) admit(ctx context.Context) bool {
	s, op := c.s, c.call.Operation
	d := s.faults.Decide(ServiceACM, op, c.start)
	bucket, allowed := s.throttle.Allow(ServiceACM, op, false, c.start)
	c.call.Bucket = bucket
	s.sleep(ctx, d.Delay)
	switch {
	case d.Outage:
		c.fail(query.Errorf("ServiceUnavailable", "Service is unavailable (simulated outage)"), OutcomeError)
	case !allowed:
		c.fail(query.Errorf("ThrottlingException", "Rate exceeded"), OutcomeThrottled)
	case d.Code != "":
		c.fail(query.Errorf(d.Code, "Simulated failure of %s", op), OutcomeError)
	default:
		return true
	}
	return false
}
