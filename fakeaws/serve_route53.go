package fakeaws

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/route53"
	"github.com/restartsim/restartsim/fakeaws/internal/sigv4"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// ServiceRoute53 is Route53's service name as recorded.
const ServiceRoute53 = "route53"

// globalRegion is where AWS signs its global services (Route53): an SDK sending them to their global
// endpoint signs for us-east-1 whatever region the client is in.
const globalRegion = "us-east-1"

// globalScope reports whether a global service's request may be signed for region: us-east-1, or the
// server's region, which an SDK whose endpoint is overridden signs in (it keeps the client's region).
func (s *Server) globalScope(region string) bool {
	return region == globalRegion || region == s.opts.Region
}

// isRoute53 reports whether r goes to Route53: its path is under /2013-04-01/ and it is not signed for S3
// (a bucket may be named 2013-04-01).
func isRoute53(r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, route53.PathPrefix) {
		return false
	}
	scope, ok := sigv4.ParseScope(r)
	return !ok || scope.Service != "s3"
}

// route53Call is the state of one Route53 request while it is served.
type route53Call struct {
	s     *Server
	w     http.ResponseWriter
	start time.Time
	call  Call
}

func (c *route53Call) fail(err error, outcome string) {
	f := route53.EncodeError(err, c.call.RequestID)
	c.call.ErrorMessage = f.Message
	c.write(f.Status, f.Body, outcome, f.Code)
}

func (c *route53Call) write(status int, body []byte, outcome, code string) {
	query.WriteXML(c.w, status, c.call.RequestID, body)
	c.call.Outcome, c.call.ErrorCode, c.call.HTTPStatus = outcome, code, status
	c.call.Latency = c.s.clock.Now().Sub(c.start)
	c.s.observe(c.call)
}

// serveRoute53 answers one Route53 request: authenticated like the Query services (headers first, then the
// body's hash), admitted by faults and the account's Route53 bucket, then served. Every answer is recorded
// once.
func (s *Server) serveRoute53(w http.ResponseWriter, r *http.Request) {
	c := &route53Call{s: s, w: w, start: s.clock.Now()}
	c.call = Call{Time: c.start, RequestID: s.newRequestID(), Service: ServiceRoute53, Operation: "unknown"}
	route, rerr := route53.Resolve(r.Method, r.URL.EscapedPath())
	if rerr == nil {
		c.call.Operation, c.call.HostedZoneID = route.Operation, route.Zone()
	}
	if f := s.precheckRoute53(r); f != nil {
		defer s.bodies.refuse(w, r)()
		c.fail(authError(f, ServiceRoute53), OutcomeError)
		return
	}
	held, err := s.bodies.read(w, r, s.opts.MaxBodyBytes)
	defer held.release()
	if err != nil {
		defer s.bodies.refuse(w, r)()
		c.fail(bodyFailure(err, s.opts.MaxBodyBytes), OutcomeError)
		return
	}
	if e := s.authenticateRoute53(r, held.data); e != nil {
		c.fail(e, OutcomeError)
		return
	}
	if rerr != nil {
		c.fail(rerr, OutcomeError)
		return
	}
	if !c.admit(r.Context()) {
		return
	}
	out, err := s.route53.Serve(s.clock.Now(), route, r.URL.Query(), held.data)
	if err != nil {
		c.fail(err, OutcomeError)
		return
	}
	body, err := route53.Encode(out.Doc)
	if err != nil {
		c.fail(query.Errorf("InternalFailure", "encoding the response: %v", err), OutcomeError)
		return
	}
	if out.Location != "" {
		w.Header().Set("Location", out.Location)
	}
	if out.ZoneID != "" {
		c.call.HostedZoneID = out.ZoneID // a created zone, named like the ELBv2 creates name theirs
	}
	c.call.RecordSets, c.call.RecordSetsOmitted = recordedSets(out.Changes)
	c.write(out.Status, body, OutcomeOK, "")
}

// recordedSets are the first MaxRecordedSets changes of a batch as the recorder keeps them, and how many it
// leaves out.
func recordedSets(changes []state.RecordChange) ([]RecordSetChange, int) {
	if len(changes) == 0 {
		return nil, 0
	}
	n := min(len(changes), MaxRecordedSets)
	out := make([]RecordSetChange, n)
	for i, ch := range changes[:n] {
		out[i] = RecordSetChange{Action: ch.Action, Name: ch.Set.Name, Type: ch.Set.Type, SetIdentifier: ch.Set.SetIdentifier}
	}
	return out, len(changes) - n
}

// bodyFailure maps a body the limiter refused to Route53's error.
func bodyFailure(err error, limit int64) *query.Error {
	switch {
	case errors.Is(err, errBodyTooLarge):
		return query.Errorf("RequestEntityTooLarge", "Request body exceeds %d bytes", limit)
	case errors.Is(err, errBodiesBusy):
		return query.Errorf("ServiceUnavailable", "The server is reading too many request bodies; retry")
	}
	return query.Errorf("InvalidInput", "Could not read the request body")
}

func (s *Server) precheckRoute53(r *http.Request) *sigv4.Failure {
	scope, f := s.verifier.Precheck(r)
	if f == nil && !s.globalScope(scope.Region) {
		f = wrongRegion(scope.Region)
	}
	return f
}

func (s *Server) authenticateRoute53(r *http.Request, body []byte) *query.Error {
	scope, f := s.verifier.Verify(r, sigv4.PayloadHash(body), false)
	switch {
	case f != nil:
	case !s.globalScope(scope.Region):
		f = wrongRegion(scope.Region)
	case scope.Service != "route53":
		f = &sigv4.Failure{Kind: sigv4.BadSignature, Message: "Credential should be scoped to correct service: 'route53'."}
	}
	if f == nil {
		return nil
	}
	return authError(f, ServiceRoute53)
}

// admit applies the injected faults and the Route53 bucket, answering an outage, a throttled call or an
// injected error itself (then it returns false).
func (c *route53Call) admit(ctx context.Context) bool {
	if e, outcome := c.s.admission(ctx, &c.call, "ServiceUnavailable", "Throttling"); e != nil {
		c.fail(e, outcome)
		return false
	}
	return true
}

// admission applies the injected faults and the operation's bucket to call, in the service's words: a
// non-nil error is the answer (an outage, a throttled call or an injected error) with its outcome.
func (s *Server) admission(ctx context.Context, call *Call, outageCode, throttledCode string) (*query.Error, string) {
	d := s.faults.Decide(call.Service, call.Operation, call.Time)
	bucket, allowed := s.throttle.Allow(call.Service, call.Operation, false, call.Time)
	call.Bucket = bucket
	s.sleep(ctx, d.Delay)
	switch {
	case d.Outage:
		return query.Errorf(outageCode, "Service is unavailable (simulated outage)"), OutcomeError
	case !allowed:
		return query.Errorf(throttledCode, "Rate exceeded"), OutcomeThrottled
	case d.Code != "":
		return query.Errorf(d.Code, "Simulated failure of %s", call.Operation), OutcomeError
	}
	return nil, ""
}
