package fakeaws

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/sigv4"
)

// Admin HTTP API (JSON) under /_restartsim/. Every request needs the server's credentials: either SigV4 or the
// headers below. Durations are Go duration strings ("1.5s"), times RFC 3339.
//
//	GET  /healthz                            "ok" (no credentials needed)
//	GET  /_restartsim/calls[?since=N]        held calls after the N-th, a JSON array written as it is read;
//	                                         X-Restartsim-Dropped-Calls says how many the ring dropped
//	GET  /_restartsim/calls/stream           JSON lines of new calls until the client disconnects
//	GET  /_restartsim/metrics                Prometheus text format
//	GET  /_restartsim/state                  {now, profile, buckets, vpcs, instances, enis, securityGroups,
//	                                         targetGroups, subnets, loadBalancers, hostedZones, eksCluster,
//	                                         iamRoles, instanceProfiles}
//	GET  /_restartsim/targets?arn=ARN        targets with health
//	GET  /_restartsim/now                    {"now"}: the scenario clock's time
//	POST /_restartsim/seed/vpc               VPC
//	POST /_restartsim/seed/instance          Instance
//	POST /_restartsim/seed/eni               ENI
//	POST /_restartsim/seed/role              {"name","path","assumeRolePolicyDocument"}: an IAM role
//	POST /_restartsim/eks/cluster            EKSCluster: what EKS DescribeCluster answers
//	POST /_restartsim/seed/certificate       CertificateSeed: an issued ACM certificate
//	POST /_restartsim/profile                {"name"}
//	POST /_restartsim/limit                  {"operation","rate","burst"} (clear: {"operation","clear":true})
//	POST /_restartsim/latency                {"operation","base","jitter"}
//	POST /_restartsim/errors                 {"operation","rate","code"}
//	POST /_restartsim/outage                 {"start" (default now),"duration","services"}
//	POST /_restartsim/capacity-error         {"instanceType","zone","code" (default InsufficientInstanceCapacity),"clear"}
//	POST /_restartsim/health-timing          {"healthyAfter","deregistrationDelay"}
//	POST /_restartsim/drift/remove-target    {"targetGroupArn","target":{"id","port"}}
//	POST /_restartsim/drift/revoke-ingress   {"groupId","rule":{...}}
const (
	AdminAccessKeyHeader = "X-Restartsim-Access-Key-Id"
	AdminSecretKeyHeader = "X-Restartsim-Secret-Access-Key"
)

// Duration is a time.Duration that reads and writes JSON as a Go duration string.
type Duration time.Duration

// MarshalJSON implements json.Marshaler.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON implements json.Unmarshaler (a duration string or integer nanoseconds).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("duration must be a string like \"1.5s\": %w", err)
		}
		*d = Duration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

type adminError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) //nolint:errchkjson // the status is sent: a failed write has nowhere to go
}

func adminFail(w http.ResponseWriter, err error) {
	var qe *query.Error
	if !errors.As(err, &qe) {
		qe = query.Errorf("InvalidRequest", "%v", err)
	}
	writeJSON(w, qe.Status(), adminError{Code: qe.Code, Message: qe.Message})
}

// adminDenied is the answer to a request without the server's credentials; why, when SigV4 says.
func adminDenied(f *sigv4.Failure) *query.Error {
	denied := query.Errorf("AccessDenied", "the admin API needs the server's credentials (SigV4 or %s/%s)", AdminAccessKeyHeader, AdminSecretKeyHeader)
	if f != nil && f.Kind != sigv4.Missing {
		denied.Message += ": " + f.Message
	}
	return denied
}

// adminPrecheck checks what r's headers alone decide, before its body is read: the credential headers
// whole, or the SigV4 signature's format, key and date (any region and service name in the scope).
func (s *Server) adminPrecheck(r *http.Request) *query.Error {
	if id := r.Header.Get(AdminAccessKeyHeader); id != "" {
		ok1 := subtle.ConstantTimeCompare([]byte(id), []byte(s.opts.AccessKeyID)) == 1
		ok2 := subtle.ConstantTimeCompare([]byte(r.Header.Get(AdminSecretKeyHeader)), []byte(s.opts.SecretAccessKey)) == 1
		if ok1 && ok2 {
			return nil
		}
		return adminDenied(nil)
	}
	if _, f := s.verifier.Precheck(r); f != nil {
		return adminDenied(f)
	}
	return nil
}

// adminAuth returns nil when r, which passed adminPrecheck, carries the server's credentials: the headers,
// or a SigV4 signature over body.
func (s *Server) adminAuth(r *http.Request, body []byte) *query.Error {
	if r.Header.Get(AdminAccessKeyHeader) != "" {
		return nil
	}
	if _, f := s.verifier.Verify(r, sigv4.PayloadHash(body), false); f != nil {
		return adminDenied(f)
	}
	return nil
}

// adminRoute is one admin endpoint: a method and a path below /_restartsim/.
type adminRoute struct {
	method, path string
	handle       http.HandlerFunc
}

// adminHandler serves the admin routes after checking the credentials (what the headers decide before the
// body is read, the signature after) and reading the body under the body limits (MaxBodyBytes); the
// handlers find the body in the request's context.
func (s *Server) adminHandler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.adminRoutes() {
		mux.HandleFunc(rt.method+" /_restartsim/"+rt.path, rt.handle)
	}
	mux.HandleFunc("/_restartsim/", func(w http.ResponseWriter, _ *http.Request) {
		adminFail(w, query.Errorf("NotFound", "no such admin endpoint"))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := s.adminPrecheck(r); e != nil {
			defer s.bodies.refuse(w, r)()
			adminFail(w, e)
			return
		}
		held, err := s.bodies.read(w, r, s.opts.MaxBodyBytes)
		defer held.release()
		if err != nil {
			defer s.bodies.refuse(w, r)()
			switch {
			case errors.Is(err, errBodyTooLarge):
				adminFail(w, query.Errorf("RequestEntityTooLarge", "request body exceeds %d bytes", s.opts.MaxBodyBytes))
			case errors.Is(err, errBodiesBusy):
				adminFail(w, query.Errorf("ServiceUnavailable", "the server is reading too many request bodies; retry"))
			default:
				adminFail(w, query.Errorf("InvalidRequest", "could not read the request body"))
			}
			return
		}
		if e := s.adminAuth(r, held.data); e != nil {
			adminFail(w, e)
			return
		}
		mux.ServeHTTP(w, r.WithContext(withBody(r.Context(), held.data)))
	})
}

// adminPost adapts fn, which takes the request body and returns the response (nil: {"ok":true}), to a
// POST handler.
func adminPost(fn func(body []byte) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := r.Context().Value(bodyKey{}).([]byte)
		v, err := fn(body)
		if err != nil {
			adminFail(w, err)
			return
		}
		if v == nil {
			v = map[string]bool{"ok": true}
		}
		writeJSON(w, http.StatusOK, v)
	}
}

// jsonCall adapts a seeding method to a JSON endpoint.
func jsonCall[T, R any](fn func(T) (R, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, query.Errorf("InvalidRequest", "decoding JSON: %v", err)
		}
		return fn(v)
	}
}
