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
//	GET  /_restartsim/state                  {now, profile, buckets, vpcs, instances, enis, securityGroups, targetGroups}
//	GET  /_restartsim/targets?arn=ARN        targets with health
//	POST /_restartsim/seed/vpc               VPC
//	POST /_restartsim/seed/instance          Instance
//	POST /_restartsim/seed/eni               ENI
//	POST /_restartsim/profile                {"name"}
//	POST /_restartsim/limit                  {"operation","rate","burst"} (clear: {"operation","clear":true})
//	POST /_restartsim/latency                {"operation","base","jitter"}
//	POST /_restartsim/errors                 {"operation","rate","code"}
//	POST /_restartsim/outage                 {"start" (default now),"duration","services"}
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
	_ = json.NewEncoder(w).Encode(v)
}

func adminFail(w http.ResponseWriter, err error) {
	var qe *query.Error
	if !errors.As(err, &qe) {
		qe = query.Errorf("InvalidRequest", "%v", err)
	}
	writeJSON(w, qe.Status(), adminError{Code: qe.Code, Message: qe.Message})
}

// adminAuth returns nil when r carries the server's credentials, else the AccessDenied error to send.
func (s *Server) adminAuth(r *http.Request, body []byte) *query.Error {
	denied := query.Errorf("AccessDenied", "the admin API needs the server's credentials (SigV4 or %s/%s)", AdminAccessKeyHeader, AdminSecretKeyHeader)
	if id := r.Header.Get(AdminAccessKeyHeader); id != "" {
		ok1 := subtle.ConstantTimeCompare([]byte(id), []byte(s.opts.AccessKeyID)) == 1
		ok2 := subtle.ConstantTimeCompare([]byte(r.Header.Get(AdminSecretKeyHeader)), []byte(s.opts.SecretAccessKey)) == 1
		if ok1 && ok2 {
			return nil
		}
		return denied
	}
	if _, f := s.verifier.Verify(r, sigv4.PayloadHash(body), false); f != nil {
		if f.Kind != sigv4.Missing {
			denied.Message += ": " + f.Message
		}
		return denied
	}
	return nil
}

// adminRoute is one admin endpoint: a method and a path below /_restartsim/.
type adminRoute struct {
	method, path string
	handle       http.HandlerFunc
}

// adminHandler serves the admin routes after reading the body (bounded by MaxBodyBytes) and checking the
// credentials; the handlers find the body in the request's context.
func (s *Server) adminHandler() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range s.adminRoutes() {
		mux.HandleFunc(rt.method+" /_restartsim/"+rt.path, rt.handle)
	}
	mux.HandleFunc("/_restartsim/", func(w http.ResponseWriter, _ *http.Request) {
		adminFail(w, query.Errorf("NotFound", "no such admin endpoint"))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := readBody(w, r, s.opts.MaxBodyBytes)
		if err != nil {
			if bodyTooLarge(err) {
				adminFail(w, query.Errorf("RequestEntityTooLarge", "request body exceeds %d bytes", s.opts.MaxBodyBytes))
			} else {
				adminFail(w, query.Errorf("InvalidRequest", "could not read the request body"))
			}
			return
		}
		if e := s.adminAuth(r, body); e != nil {
			adminFail(w, e)
			return
		}
		mux.ServeHTTP(w, r.WithContext(withBody(r.Context(), body)))
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
func jsonCall[T any](fn func(T) (T, error)) func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			return nil, query.Errorf("InvalidRequest", "decoding JSON: %v", err)
		}
		return fn(v)
	}
}
