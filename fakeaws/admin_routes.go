package fakeaws

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// adminRoutes is the table of admin endpoints; the comment on AdminAccessKeyHeader describes each.
func (s *Server) adminRoutes() []adminRoute {
	return []adminRoute{
		{http.MethodGet, "calls", s.listCalls},
		{http.MethodGet, "calls/stream", s.streamCalls},
		{http.MethodGet, "metrics", s.serveMetrics},
		{http.MethodGet, "state", s.serveState},
		{http.MethodGet, "targets", s.serveTargets},
		{http.MethodGet, "now", s.serveNow},
		{http.MethodPost, "seed/vpc", adminPost(jsonCall(s.SeedVPC))},
		{http.MethodPost, "seed/instance", adminPost(jsonCall(s.SeedInstance))},
		{http.MethodPost, "seed/eni", adminPost(jsonCall(s.SeedENI))},
		{http.MethodPost, "seed/certificate", adminPost(jsonCall(s.SeedCertificate))},
		{http.MethodPost, "profile", adminPost(s.postProfile)},
		{http.MethodPost, "limit", adminPost(s.postLimit)},
		{http.MethodPost, "latency", adminPost(s.postLatency)},
		{http.MethodPost, "errors", adminPost(s.postErrors)},
		{http.MethodPost, "outage", adminPost(s.postOutage)},
		{http.MethodPost, "capacity-error", adminPost(jsonCall(s.SetCapacityError))},
		{http.MethodPost, "eks/cluster", adminPost(jsonCall(s.SetEKSCluster))},
		{http.MethodPost, "seed/role", adminPost(jsonCall(s.SeedRole))},
		{http.MethodPost, "health-timing", adminPost(s.postHealthTiming)},
		{http.MethodPost, "drift/remove-target", adminPost(s.postRemoveTarget)},
		{http.MethodPost, "drift/revoke-ingress", adminPost(s.postRevokeIngress)},
	}
}

func (s *Server) serveMetrics(w http.ResponseWriter, r *http.Request) {
	if s.gatherer == nil {
		adminFail(w, query.Errorf("NotFound", "metrics go to an external registry"))
		return
	}
	promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}).ServeHTTP(w, r)
}

func (s *Server) serveState(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"now": s.Now(), "profile": s.Profile(), "buckets": s.Buckets(), "vpcs": s.VPCs(), "instances": s.Instances(),
		"enis": s.ENIs(), "securityGroups": s.SecurityGroups(), "targetGroups": s.TargetGroups(), "subnets": s.Subnets(),
		"loadBalancers": s.loadBalancerTree(), "hostedZones": s.hostedZoneTree(),
		"eksCluster": s.EKSClusterConfig(), "iamRoles": s.IAMRoles(), "instanceProfiles": s.InstanceProfiles(),
	})
}

// serveNow answers the scenario clock's time, which the state's "now" also holds, without the state.
func (s *Server) serveNow(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]time.Time{"now": s.Now()})
}

func (s *Server) serveTargets(w http.ResponseWriter, r *http.Request) {
	ts, err := s.Targets(r.URL.Query().Get("arn"))
	if err != nil {
		adminFail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, ts)
}

func (s *Server) postProfile(b []byte) (any, error) {
	var req struct{ Name string }
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	return nil, s.SetProfile(req.Name)
}

func (s *Server) postLimit(b []byte) (any, error) {
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
}

func (s *Server) postLatency(b []byte) (any, error) {
	var req struct {
		Operation    string
		Base, Jitter Duration
	}
	if err := json.Unmarshal(b, &req); err != nil || req.Operation == "" {
		return nil, query.Errorf("InvalidRequest", "want {\"operation\",\"base\",\"jitter\"}")
	}
	s.SetLatency(req.Operation, time.Duration(req.Base), time.Duration(req.Jitter))
	return nil, nil
}

func (s *Server) postErrors(b []byte) (any, error) {
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
}

func (s *Server) postOutage(b []byte) (any, error) {
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
}

func (s *Server) postHealthTiming(b []byte) (any, error) {
	var req struct{ HealthyAfter, DeregistrationDelay Duration }
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	s.SetHealthTiming(time.Duration(req.HealthyAfter), time.Duration(req.DeregistrationDelay))
	return nil, nil
}

func (s *Server) postRemoveTarget(b []byte) (any, error) {
	var req struct {
		TargetGroupArn string
		Target         Target
	}
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	return nil, s.RemoveTarget(req.TargetGroupArn, req.Target)
}

func (s *Server) postRevokeIngress(b []byte) (any, error) {
	var req struct {
		GroupID string `json:"groupId"`
		Rule    Rule
	}
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	return nil, s.RevokeIngress(req.GroupID, req.Rule)
}
