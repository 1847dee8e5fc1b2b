package fakeaws

import (
	"bufio"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

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

func (s *Server) adminHandler() http.Handler {
	mux := http.NewServeMux()
	get := func(path string, fn func(http.ResponseWriter, *http.Request)) {
		mux.HandleFunc("GET /_restartsim/"+path, fn)
	}
	post := func(path string, fn func(body []byte) (any, error)) {
		mux.HandleFunc("POST /_restartsim/"+path, func(w http.ResponseWriter, r *http.Request) {
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
		})
	}
	get("calls", s.listCalls)
	get("calls/stream", s.streamCalls)
	get("metrics", func(w http.ResponseWriter, r *http.Request) {
		if s.gatherer == nil {
			adminFail(w, query.Errorf("NotFound", "metrics go to an external registry"))
			return
		}
		promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}).ServeHTTP(w, r)
	})
	get("state", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"now": s.Now(), "profile": s.Profile(), "buckets": s.Buckets(), "vpcs": s.VPCs(), "instances": s.Instances(),
			"enis": s.ENIs(), "securityGroups": s.SecurityGroups(), "targetGroups": s.TargetGroups(),
		})
	})
	get("targets", func(w http.ResponseWriter, r *http.Request) {
		ts, err := s.Targets(r.URL.Query().Get("arn"))
		if err != nil {
			adminFail(w, err)
			return
		}
		writeJSON(w, http.StatusOK, ts)
	})
	post("seed/vpc", jsonCall(s.SeedVPC))
	post("seed/instance", jsonCall(s.SeedInstance))
	post("seed/eni", jsonCall(s.SeedENI))
	post("profile", func(b []byte) (any, error) {
		var req struct{ Name string }
		if err := json.Unmarshal(b, &req); err != nil {
			return nil, err
		}
		return nil, s.SetProfile(req.Name)
	})
	post("limit", func(b []byte) (any, error) {
		var req struct {
			Operation string
			Rate      float64
			Burst     int
			Clear     bool
		}
		if err := json.Unmarshal(b, &req); err != nil || req.Operation == "" {
			return nil, query.Errorf("InvalidRequest", "want {\"operation\",\"rate\",\"burst\"}")
		}
		if req.Clear {
			s.ClearLimit(req.Operation)
		} else {
			s.SetLimit(req.Operation, req.Rate, req.Burst)
		}
		return nil, nil
	})
	post("latency", func(b []byte) (any, error) {
		var req struct {
			Operation    string
			Base, Jitter Duration
		}
		if err := json.Unmarshal(b, &req); err != nil || req.Operation == "" {
			return nil, query.Errorf("InvalidRequest", "want {\"operation\",\"base\",\"jitter\"}")
		}
		s.SetLatency(req.Operation, time.Duration(req.Base), time.Duration(req.Jitter))
		return nil, nil
	})
	post("errors", func(b []byte) (any, error) {
		var req struct {
			Operation string
			Rate      float64
			Code      string
		}
		if err := json.Unmarshal(b, &req); err != nil || req.Operation == "" || req.Rate < 0 || req.Rate > 1 {
			return nil, query.Errorf("InvalidRequest", "want {\"operation\",\"rate\" (0..1),\"code\"}")
		}
		s.SetErrorRate(req.Operation, req.Rate, req.Code)
		return nil, nil
	})
	post("outage", func(b []byte) (any, error) {
		var req struct {
			Start    *time.Time
			Duration Duration
			Services []string
		}
		if err := json.Unmarshal(b, &req); err != nil || req.Duration <= 0 {
			return nil, query.Errorf("InvalidRequest", "want {\"start\",\"duration\",\"services\"}")
		}
		start := s.Now()
		if req.Start != nil {
			start = *req.Start
		}
		s.AddOutage(start, time.Duration(req.Duration), req.Services...)
		return nil, nil
	})
	post("health-timing", func(b []byte) (any, error) {
		var req struct{ HealthyAfter, DeregistrationDelay Duration }
		if err := json.Unmarshal(b, &req); err != nil {
			return nil, err
		}
		s.SetHealthTiming(time.Duration(req.HealthyAfter), time.Duration(req.DeregistrationDelay))
		return nil, nil
	})
	post("drift/remove-target", func(b []byte) (any, error) {
		var req struct {
			TargetGroupArn string
			Target         Target
		}
		if err := json.Unmarshal(b, &req); err != nil {
			return nil, err
		}
		return nil, s.RemoveTarget(req.TargetGroupArn, req.Target)
	})
	post("drift/revoke-ingress", func(b []byte) (any, error) {
		var req struct {
			GroupID string `json:"groupId"`
			Rule    Rule
		}
		if err := json.Unmarshal(b, &req); err != nil {
			return nil, err
		}
		return nil, s.RevokeIngress(req.GroupID, req.Rule)
	})
	mux.HandleFunc("/_restartsim/", func(w http.ResponseWriter, _ *http.Request) {
		adminFail(w, query.Errorf("NotFound", "no such admin endpoint"))
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := readBody(w, r, s.opts.MaxBodyBytes)
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
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

// DroppedCallsHeader is the /calls response header with the number of calls the recorder has dropped.
const DroppedCallsHeader = "X-Restartsim-Dropped-Calls"

// liftDeadlines lets a response outlive the server's read and write timeouts (which would otherwise also cancel
// the request's context).
func liftDeadlines(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

// listCalls writes the held calls as one JSON array in batches, never building the document in memory.
func (s *Server) listCalls(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("since"))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(DroppedCallsHeader, strconv.FormatUint(s.rec.Dropped(), 10))
	liftDeadlines(w) // a long log may take a while to read
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	sep := byte('[')
	var err error
	s.rec.each(n, func(batch []Call) bool {
		for i := range batch {
			if err = bw.WriteByte(sep); err == nil {
				err = enc.Encode(&batch[i])
			}
			if err != nil {
				return false
			}
			sep = ','
		}
		return true
	})
	if err != nil {
		return
	}
	if sep == '[' {
		_, _ = bw.WriteString("[")
	}
	_, _ = bw.WriteString("]\n")
	_ = bw.Flush()
}

func (s *Server) streamCalls(w http.ResponseWriter, r *http.Request) {
	liftDeadlines(w) // open until the client leaves
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	ch := make(chan Call, 1024)
	cancel := s.rec.Subscribe(func(c Call) {
		select {
		case ch <- c:
		default: // a slow reader loses calls rather than stalling the server
		}
	})
	defer cancel()
	enc := json.NewEncoder(w)
	if flusher != nil {
		flusher.Flush()
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case c := <-ch:
			if err := enc.Encode(c); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}
