package fakeaws

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/ec2"
	"github.com/restartsim/restartsim/fakeaws/internal/elbv2"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/sigv4"
	"github.com/restartsim/restartsim/fakeaws/internal/sts"
)

// Service names as recorded.
const (
	ServiceELBv2 = "elbv2"
	ServiceEC2   = "ec2"
	ServiceS3    = "s3"
	ServiceSTS   = "sts"
)

// queryCall is the state of one Query request while it is served.
type queryCall struct {
	s       *Server
	w       http.ResponseWriter
	start   time.Time
	dialect query.Dialect
	call    Call
}

func (q *queryCall) fail(e *query.Error, outcome string) {
	q.call.ErrorMessage = e.Message
	q.write(e.Status(), query.EncodeError(q.dialect, e, q.call.RequestID), outcome, e.Code)
}

func (q *queryCall) write(status int, body []byte, outcome, code string) {
	query.WriteXML(q.w, status, q.call.RequestID, body)
	q.call.Outcome, q.call.ErrorCode, q.call.HTTPStatus = outcome, code, status
	q.call.Latency = q.s.clock.Now().Sub(q.start)
	q.s.observe(q.call)
}

func serviceOfScope(name string) string {
	switch name {
	case "elasticloadbalancing":
		return ServiceELBv2
	case "ec2":
		return ServiceEC2
	case "sts":
		return ServiceSTS
	}
	return ""
}

// dialectOf is the wire dialect of a Query service.
func dialectOf(service string) query.Dialect {
	switch service {
	case ServiceEC2:
		return query.EC2Query
	case ServiceSTS:
		return query.STSQuery
	}
	return query.AWSQuery
}

// serveQuery answers one ELBv2, EC2 or STS Query request. Every answer, error or not, is recorded once.
func (s *Server) serveQuery(w http.ResponseWriter, r *http.Request) {
	q, signedFor := s.startQuery(w, r)
	// What the headers alone decide is checked before the body is read, so that a client without the
	// credentials cannot make the server hold its body.
	if f := s.precheck(r); f != nil {
		if q.call.Service == "" {
			q.serviceFromVersion(s.bodies.peekVersion(w, r))
		}
		defer s.bodies.refuse(w, r)()
		q.fail(authError(f, q.call.Service), OutcomeError)
		return
	}
	held, ok := q.readBody(r)
	defer held.release()
	if !ok {
		return
	}
	body := held.data
	q.serviceFromVersion(query.Peek(body, r.URL.RawQuery, "Version"))
	// The signature covers only the body's hash, so a request is authenticated before its form is decoded.
	if e := s.authenticate(r, body, q.call.Service); e != nil {
		q.fail(e, OutcomeError)
		return
	}
	if q.call.Service == "" {
		q.fail(query.Errorf("InvalidAction", "The service '%s' is not served by this endpoint", signedFor), OutcomeError)
		return
	}
	form, handler, e := q.parseAction(body, r.URL.RawQuery)
	if e != nil {
		q.fail(e, OutcomeError)
		return
	}
	if q.admit(r.Context(), form) {
		q.dispatch(handler, form)
	}
}

// startQuery begins the record of a request, with the service it is signed for if that is one served here;
// it also returns the service name of the signature's scope.
func (s *Server) startQuery(w http.ResponseWriter, r *http.Request) (*queryCall, string) {
	q := &queryCall{s: s, w: w, start: s.clock.Now()}
	q.call = Call{Time: q.start, RequestID: s.newRequestID(), Operation: "unknown"}
	scope, _ := sigv4.ParseScope(r)
	q.call.Service = serviceOfScope(scope.Service)
	q.dialect = dialectOf(q.call.Service)
	return q, scope.Service
}

// readBody reads the request body under the server's body limits, answering the error itself when it
// cannot. The caller releases the body once it has answered.
func (q *queryCall) readBody(r *http.Request) (*heldBody, bool) {
	held, err := q.s.bodies.read(q.w, r, q.s.opts.MaxBodyBytes)
	if err == nil {
		return held, true
	}
	defer q.s.bodies.refuse(q.w, r)()
	switch {
	case errors.Is(err, errBodyTooLarge):
		q.fail(query.Errorf("RequestEntityTooLarge", "Request body exceeds %d bytes", q.s.opts.MaxBodyBytes), OutcomeError)
	case errors.Is(err, errBodiesBusy):
		code := "ServiceUnavailable"
		if q.dialect == query.EC2Query {
			code = "Unavailable"
		}
		q.fail(query.Errorf(code, "The server is reading too many request bodies; retry"), OutcomeError)
	default:
		q.fail(query.Errorf("MalformedQueryString", "Could not read the request body"), OutcomeError)
	}
	return held, false
}

// serviceFromVersion picks the service of a request that is unsigned or signed for another service from the
// Version it sends: ELBv2's, STS's, or else EC2 (whose API versions are many).
func (q *queryCall) serviceFromVersion(version string) {
	if q.call.Service != "" {
		return
	}
	switch version {
	case elbv2.Version:
		q.call.Service = ServiceELBv2
	case sts.Version:
		q.call.Service = ServiceSTS
	case "":
		return
	default:
		q.call.Service = ServiceEC2
	}
	q.dialect = dialectOf(q.call.Service)
}

// parseAction decodes the form, resolves its action and records what the call is about.
func (q *queryCall) parseAction(body []byte, rawQuery string) (*query.Form, query.Handler, *query.Error) {
	form, err := query.ParseForm(body, rawQuery, q.s.opts.FormLimits)
	if err == nil {
		err = form.CheckLists()
	}
	if err != nil {
		return nil, nil, formFailure(q.dialect, err)
	}
	action := form.Get("Action")
	handler, e := q.s.lookup(q.call.Service, action, form)
	if e != nil {
		return nil, nil, e
	}
	q.call.Operation = action
	q.call.TargetGroupARN = form.Get("TargetGroupArn")
	q.call.LoadBalancerARN, q.call.ListenerARN = form.Get("LoadBalancerArn"), form.Get("ListenerArn")
	q.call.RuleARN = form.Get("RuleArn")
	q.call.SecurityGroupID = form.Get("GroupId")
	if q.call.Service == ServiceELBv2 && form.Has("Targets") {
		q.call.Targets, _ = elbv2.Targets(form)
	}
	if q.call.Service == ServiceEC2 {
		q.call.Filters, q.call.ResourceIDs = ec2.FilterNames(form), ec2.ResourceIDs(form)
	}
	return form, handler, nil
}

// admit applies the injected faults and the throttle to the call: it waits the injected latency, then
// answers an outage, a throttled call or an injected error itself and returns false.
func (q *queryCall) admit(ctx context.Context, form *query.Form) bool {
	s, svc, action := q.s, q.call.Service, q.call.Operation
	d := s.faults.Decide(svc, action, q.start)
	bucket, allowed := s.throttle.Allow(svc, action, svc == ServiceEC2 && ec2.Unfiltered(form), q.start)
	q.call.Bucket = bucket
	s.sleep(ctx, d.Delay)
	switch {
	case d.Outage:
		code := "ServiceUnavailable"
		if q.dialect == query.EC2Query {
			code = "Unavailable"
		}
		q.fail(query.Errorf(code, "Service is unavailable (simulated outage)"), OutcomeError)
	case !allowed:
		if q.dialect == query.EC2Query {
			q.fail(query.Errorf("RequestLimitExceeded", "Request limit exceeded."), OutcomeThrottled)
		} else {
			q.fail(query.Errorf("Throttling", "Rate exceeded"), OutcomeThrottled)
		}
	case d.Code != "":
		q.fail(query.Errorf(d.Code, "Simulated failure of %s", action), OutcomeError)
	default:
		return true
	}
	return false
}

// dispatch runs the action's handler and writes its result or error.
func (q *queryCall) dispatch(handler query.Handler, form *query.Form) {
	result, err := handler(q.s.clock.Now(), form)
	if err != nil {
		var qe *query.Error
		if !errors.As(err, &qe) {
			qe = query.Errorf("InternalFailure", "%v", err)
		}
		q.fail(qe, OutcomeError)
		return
	}
	if q.call.Service == ServiceELBv2 {
		// A create names what it made, as the calls that change it do.
		tg, lb, l, r := elbv2.Created(q.call.Operation, result)
		q.call.TargetGroupARN = cmp.Or(q.call.TargetGroupARN, tg)
		q.call.LoadBalancerARN, q.call.ListenerARN = cmp.Or(q.call.LoadBalancerARN, lb), cmp.Or(q.call.ListenerARN, l)
		q.call.RuleARN = cmp.Or(q.call.RuleARN, r)
	}
	if q.call.Service == ServiceEC2 {
		q.call.SecurityGroupID = cmp.Or(q.call.SecurityGroupID, ec2.SecurityGroupOf(result))
	}
	out, err := query.EncodeResponse(q.dialect, q.call.Operation, q.call.RequestID, result)
	if err != nil {
		q.fail(query.Errorf("InternalFailure", "encoding the response: %v", err), OutcomeError)
		return
	}
	q.write(http.StatusOK, out, OutcomeOK, "")
}

// formFailure maps a refused form to the service's error: MalformedQueryString for bad encoding, otherwise
// ELBv2's ValidationError or EC2's InvalidParameterValue.
func formFailure(d query.Dialect, err error) *query.Error {
	var fe *query.FormError
	if !errors.As(err, &fe) || fe.Kind == query.FormMalformed {
		return query.Errorf("MalformedQueryString", "The query string is malformed")
	}
	if d == query.EC2Query {
		return query.NewError("InvalidParameterValue", fe.Message)
	}
	return query.NewError("ValidationError", fe.Message)
}

// lookup resolves the action of a Query request, checking Action and Version like the real services.
func (s *Server) lookup(service, action string, form *query.Form) (query.Handler, *query.Error) {
	if action == "" {
		return nil, query.Errorf("MissingAction", "The request must contain the parameter Action")
	}
	version := form.Get("Version")
	switch service {
	case ServiceELBv2:
		if version != elbv2.Version {
			return nil, query.Errorf("InvalidAction", "Could not find operation %s for version %s", action, version)
		}
		if h, ok := s.elb.Lookup(action); ok {
			return h, nil
		}
		return nil, query.Errorf("InvalidAction", "Could not find operation %s for version %s", action, version)
	case ServiceSTS:
		if h, ok := s.sts.Lookup(action); ok && version == sts.Version {
			return h, nil
		}
		return nil, query.Errorf("InvalidAction", "Could not find operation %s for version %s", action, version)
	default:
		if version == "" {
			return nil, query.Errorf("MissingParameter", "The request must contain the parameter Version")
		}
		if h, ok := s.ec2.Lookup(action); ok {
			return h, nil
		}
		return nil, query.Errorf("InvalidAction", "The action %s is not valid for this web service.", action)
	}
}
