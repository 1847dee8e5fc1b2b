package fakeaws

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/restartsim/restartsim/fakeaws/internal/acm"
	"github.com/restartsim/restartsim/fakeaws/internal/ec2"
	"github.com/restartsim/restartsim/fakeaws/internal/eks"
	"github.com/restartsim/restartsim/fakeaws/internal/elbv2"
	"github.com/restartsim/restartsim/fakeaws/internal/faults"
	"github.com/restartsim/restartsim/fakeaws/internal/iam"
	"github.com/restartsim/restartsim/fakeaws/internal/route53"
	"github.com/restartsim/restartsim/fakeaws/internal/s3quota"
	"github.com/restartsim/restartsim/fakeaws/internal/sigv4"
	"github.com/restartsim/restartsim/fakeaws/internal/ssm"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
	"github.com/restartsim/restartsim/fakeaws/internal/sts"
	"github.com/restartsim/restartsim/fakeaws/internal/throttle"
)

// Server is the fake AWS endpoint. It is an http.Handler; Start or Serve put it on a listener.
type Server struct {
	opts     Options
	verifier sigv4.Verifier
	log      logr.Logger
	clock    simClock
	st       *state.Store
	elb      *elbv2.Service
	ec2      *ec2.Service
	route53  *route53.Service
	sts      *sts.Service
	iam      *iam.Service
	ssm      *ssm.Service
	eks      *eks.Service
	acm      *acm.Service
	throttle *throttle.Throttler
	faults   *faults.Injector
	rec      *Recorder
	metrics  *metrics
	gatherer prometheus.Gatherer
	s3       http.Handler
	s3store  gofakes3.Backend // what s3 serves, for S3Buckets
	s3quota  *s3quota.Quota
	s3tags   *s3Tags // bucket tags, which gofakes3 does not keep
	bodies   *bodyLimiter
	conns    connCounts
	admin    http.Handler
	reqSeq   atomic.Uint64

	mu      sync.Mutex
	httpSrv *http.Server
	url     string
}

// New builds a Server from opts (zero fields take their documented defaults).
func New(opts Options) (*Server, error) {
	opts.setDefaults()
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("fakeaws: invalid options: %w", err)
	}
	thr, err := throttle.New(opts.Profile, opts.Overrides)
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:     opts,
		verifier: sigv4.Verifier{AccessKeyID: opts.AccessKeyID, SecretAccessKey: opts.SecretAccessKey, Clock: opts.WallClock, MaxSkew: opts.MaxClockSkew},
		log:      opts.Logger,
		clock:    newSimClock(opts.Clock, opts.TimeScale, opts.From.time()),
		throttle: thr,
		faults:   faults.New(opts.Seed),
		rec:      newRecorder(opts.MaxRecordedCalls),
		bodies:   newBodyLimiter(opts.MaxInFlightBodyBytes, bodySlots(opts.MaxConnections), opts.ReadTimeout),
		s3quota:  s3quota.New(opts.MaxStoredBytes),
	}
	cfg := state.Config{
		AccountID: opts.AccountID, Region: opts.Region, HealthyAfter: opts.HealthyAfter,
		DeregistrationDelay: opts.DeregistrationDelay, MaxTargetsPerGroup: opts.MaxTargetsPerGroup,
		MaxTargetGroups: opts.MaxTargetGroups, MaxRulesPerGroup: opts.MaxRulesPerSecurityGroup, MaxTags: 50, Seed: opts.Seed,
		LoadBalancerActiveAfter: opts.LoadBalancerActiveAfter, MaxLoadBalancers: opts.MaxLoadBalancers,
		MaxListenersPerLB: opts.MaxListenersPerLoadBalancer, MaxRulesPerListener: opts.MaxRulesPerListener,
		Route53PropagationDelay: opts.Route53PropagationDelay, MaxHostedZones: opts.MaxHostedZones,
		MaxRecordSetsPerZone: opts.MaxRecordSetsPerZone, InstanceBootDelay: opts.InstanceBootDelay,
		CertificateIssueDelay: opts.CertificateIssueDelay,
	}
	if opts.From == nil {
		s.st = state.New(cfg)
	} else if s.st, err = opts.From.st.Clone(cfg); err != nil {
		return nil, fmt.Errorf("fakeaws: restoring the snapshot: %w", err)
	}
	s.elb = elbv2.New(s.st)
	s.ec2 = ec2.New(s.st)
	s.route53 = route53.New(s.st)
	s.sts = sts.New(opts.AccountID, opts.AccessKeyID)
	s.acm = acm.New(s.st)
	s.iam = iam.New(opts.AccountID)
	s.ec2.ProfileARN = s.iam.ProfileARN
	s.ssm = ssm.New(opts.Region)
	s.eks = eks.New(opts.AccountID, opts.Region)
	if err := s.configureAccount(opts); err != nil {
		return nil, err
	}
	reg := opts.Registry
	if reg == nil {
		r := prometheus.NewRegistry()
		reg, s.gatherer = r, r
	} else if g, ok := reg.(prometheus.Gatherer); ok {
		s.gatherer = g
	}
	if s.metrics, err = newMetrics(s, reg); err != nil {
		return nil, fmt.Errorf("fakeaws: registering metrics: %w", err)
	}
	s.s3store = s.s3quota.Wrap(s3mem.New(s3mem.WithTimeSource(s.clock)))
	s.s3tags = &s3Tags{s: s, tags: map[string][]s3Tag{}}
	s.s3 = gofakes3.New(s.s3store, gofakes3.WithTimeSource(s.clock), gofakes3.WithTimeSkewLimit(0)).Server()
	s.admin = s.adminHandler()
	return s, nil
}

// ServeHTTP routes a request: /_restartsim/ to the admin API, /2013-04-01/ to Route53, an X-Amz-Target of
// ACM to ACM, SigV4 scope "s3" to S3, scopes "ssm" and "eks" to those JSON services, everything else to the
// Query services.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer handling(r)()
	defer func() {
		if p := recover(); p != nil {
			if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(p)
			}
			s.log.Error(fmt.Errorf("panic: %v", p), "fakeaws handler panicked", "path", r.URL.Path)
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}()
	if r.URL.Path == "/healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		serveHealthz(w)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/_restartsim/") {
		s.admin.ServeHTTP(w, r)
		return
	}
	if isRoute53(r) {
		s.serveRoute53(w, r)
		return
	}
	if isACM(r) { // before S3, which takes unsigned requests that are not Query
		s.serveJSON(w, r, ServiceACM)
		return
	}
	if s.isS3(r) {
		s.serveS3(w, r)
		return
	}
	if svc := jsonServiceOf(r); svc != "" {
		s.serveJSON(w, r, svc)
		return
	}
	s.serveQuery(w, r)
}

// Snapshot is a copy of a server's AWS resources (VPCs, subnets, instances, ENIs, security groups, target
// groups and their targets, load balancers with their listeners and rules, Route53 hosted zones with their
// record sets and changes) at one moment; calls, faults, limits and metrics are not part of it.
type Snapshot struct {
	st        *state.Store
	accountID string
	region    string
	at        time.Time // scenario time of the copy: a restored server's clock continues from it
}

func (s *Snapshot) time() time.Time {
	if s == nil {
		return time.Time{}
	}
	return s.at
}

// Snapshot copies the current resources, so that servers started later with Options.From begin where this
// one is now, their clocks continuing from this moment (registered targets keep their age, so a healthy
// target stays healthy). The simulator builds and converges a fleet once and runs each strategy on a copy.
func (s *Server) Snapshot() (*Snapshot, error) {
	st, err := s.st.Clone(state.Config{AccountID: s.opts.AccountID, Region: s.opts.Region})
	if err != nil {
		return nil, err
	}
	return &Snapshot{st: st, accountID: s.opts.AccountID, region: s.opts.Region, at: s.clock.Now()}, nil
}

// Now returns the current scenario time.
func (s *Server) Now() time.Time { return s.clock.Now() }

// Recorder returns the call recorder.
func (s *Server) Recorder() *Recorder { return s.rec }

// Gatherer returns the registry to scrape (nil when Options.Registry is a Registerer only).
func (s *Server) Gatherer() prometheus.Gatherer { return s.gatherer }

// Options returns the effective (defaulted) options.
func (s *Server) Options() Options { return s.opts }

func withLoopback(addr string) string {
	if addr == "" {
		return "127.0.0.1:0"
	}
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// Start listens on addr ("" → 127.0.0.1 on a free port; an address without host binds 127.0.0.1) and serves in
// the background until Close. It returns the base URL (http://host:port) for BaseEndpoint.
func (s *Server) Start(addr string) (string, error) {
	addr = withLoopback(addr)
	if err := CheckListenAddress(addr, s.opts.AllowNonLoopback); err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("fakeaws: listen: %w", err)
	}
	if err := s.checkListener(ln); err != nil {
		ln.Close()
		return "", err
	}
	ln = newConnLimiter(ln, s.opts.MaxConnections, &s.conns)
	srv := s.newHTTPServer()
	s.mu.Lock()
	if s.httpSrv != nil {
		s.mu.Unlock()
		ln.Close()
		return "", errors.New("fakeaws: already started")
	}
	s.httpSrv, s.url = srv, "http://"+ln.Addr().String()
	s.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error(err, "fakeaws server stopped")
		}
	}()
	return s.URL(), nil
}

// Serve serves on ln until ctx is cancelled, then shuts down gracefully (in-flight requests get 5 s).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if err := s.checkListener(ln); err != nil {
		return err
	}
	ln = newConnLimiter(ln, s.opts.MaxConnections, &s.conns)
	srv := s.newHTTPServer()
	s.mu.Lock()
	s.url = "http://" + ln.Addr().String()
	s.mu.Unlock()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
		return nil
	}
}

// maxHeaderBytes bounds a request's headers (net/http's default is 1 MiB): SigV4 requests need a few KiB,
// and a client trickling headers holds what it has sent.
const maxHeaderBytes = 64 << 10

func (s *Server) newHTTPServer() *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: min(10*time.Second, s.opts.ReadTimeout), ReadTimeout: s.opts.ReadTimeout,
		WriteTimeout: s.opts.WriteTimeout, IdleTimeout: s.opts.IdleTimeout, MaxHeaderBytes: maxHeaderBytes, ErrorLog: httpErrorLog(s.log),
		ConnState: connState, ConnContext: connContext}
}

// bodySlots is how many request bodies may be read at once: three quarters of the connections, so that
// connections holding bodies never take the last ones, which /healthz and quick requests need.
func bodySlots(maxConnections int) int { return max(1, maxConnections-maxConnections/4) }

// URL is the base URL of the listener started by Start or Serve ("" before).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.url
}

// Close stops a server started by Start, waiting up to 5 s for in-flight requests.
func (s *Server) Close() error {
	s.mu.Lock()
	srv := s.httpSrv
	s.httpSrv = nil
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return srv.Close()
	}
	return nil
}

func (s *Server) newRequestID() string {
	n := s.reqSeq.Add(1)
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", uint32(s.opts.Seed), uint16(n>>48), uint16(n>>36)&0xfff, uint16(n>>24)&0xfff, n&0xffffffffffff)
}

// sleep waits d of scenario time (d ÷ TimeScale of clock time) or until ctx ends.
func (s *Server) sleep(ctx context.Context, d time.Duration) {
	wall := s.clock.wall(d)
	if wall <= 0 { // a fake clock's After(0) would wait for the next step
		return
	}
	select {
	case <-s.clock.base.After(wall):
	case <-ctx.Done():
	}
}

func (s *Server) observe(c Call) {
	code := c.ErrorCode
	if code == "" {
		code = "OK"
	}
	svc := c.Service
	if svc == "" {
		svc = "unknown"
	}
	s.metrics.requests.WithLabelValues(svc, c.Operation, code).Inc()
	s.metrics.duration.WithLabelValues(svc, c.Operation).Observe(c.Latency.Seconds())
	if c.Outcome == OutcomeThrottled {
		s.metrics.throttled.WithLabelValues(svc, c.Operation).Inc()
	}
	s.rec.record(c)
	if s.log.V(1).Enabled() {
		s.log.V(1).Info("call", "service", c.Service, "operation", c.Operation, "outcome", c.Outcome, "code", c.ErrorCode, "latency", c.Latency)
	}
}
