package fakeaws

import (
	"github.com/prometheus/client_golang/prometheus"
)

type metrics struct {
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	throttled *prometheus.CounterVec
}

// bucketCollector reports the fill of every live token bucket.
type bucketCollector struct {
	s        *Server
	tokens   *prometheus.Desc
	capacity *prometheus.Desc
	rate     *prometheus.Desc
}

func (c *bucketCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.tokens
	ch <- c.capacity
	ch <- c.rate
}

func (c *bucketCollector) Collect(ch chan<- prometheus.Metric) {
	for _, b := range c.s.throttle.Buckets(c.s.clock.Now()) {
		if b.Limit.Rate < 0 {
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.tokens, prometheus.GaugeValue, b.Tokens, b.Key)
		ch <- prometheus.MustNewConstMetric(c.capacity, prometheus.GaugeValue, float64(b.Limit.Burst), b.Key)
		ch <- prometheus.MustNewConstMetric(c.rate, prometheus.GaugeValue, b.Limit.Rate, b.Key)
	}
}

func newMetrics(s *Server, reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fakeaws_requests_total",
			Help: "Requests served, by service, operation and AWS error code (\"OK\" for success).",
		}, []string{"service", "operation", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "fakeaws_request_duration_seconds",
			Help:    "Request latency in scenario seconds, including injected latency.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2.5, 14),
		}, []string{"service", "operation"}),
		throttled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fakeaws_throttled_requests_total",
			Help: "Requests rejected by a token bucket.",
		}, []string{"service", "operation"}),
	}
	bc := &bucketCollector{
		s:        s,
		tokens:   prometheus.NewDesc("fakeaws_throttle_bucket_tokens", "Tokens currently in the bucket (scenario time).", []string{"bucket"}, nil),
		capacity: prometheus.NewDesc("fakeaws_throttle_bucket_capacity", "Bucket capacity (burst).", []string{"bucket"}, nil),
		rate:     prometheus.NewDesc("fakeaws_throttle_bucket_refill_per_second", "Refill rate in tokens per scenario second.", []string{"bucket"}, nil),
	}
	dropped := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "fakeaws_recorder_dropped_calls_total",
		Help: "Recorded calls pushed out of the recorder's ring (Options.MaxRecordedCalls).",
	}, func() float64 { return float64(s.rec.Dropped()) })
	bodyBytes := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "fakeaws_inflight_body_bytes",
		Help: "Bytes reserved by request bodies being read or served (bounded by Options.MaxInFlightBodyBytes).",
	}, func() float64 { return float64(s.bodies.held.Load()) })
	bodies := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "fakeaws_inflight_bodies",
		Help: "Request bodies being read (at most three quarters of Options.MaxConnections).",
	}, func() float64 { return float64(s.bodies.readers.Load()) })
	refused := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "fakeaws_body_limit_refusals_total",
		Help: "Requests refused with 503 because the bodies being read held the memory or connections bodies may have.",
	}, func() float64 { return float64(s.bodies.refusals.Load()) })
	stored := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "fakeaws_s3_stored_bytes",
		Help: "Bytes S3 holds or has reserved for writes in flight (bounded by Options.MaxStoredBytes).",
	}, func() float64 { return float64(s.s3quota.Used()) })
	conns := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "fakeaws_connections",
		Help: "Open connections on the listener Start or Serve made (at most Options.MaxConnections).",
	}, func() float64 { return float64(s.conns.open.Load()) })
	connsClosed := prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "fakeaws_connections_closed_for_room_total",
		Help: "Connections without a request in a handler closed at Options.MaxConnections to make room for a new one.",
	}, func() float64 { return float64(s.conns.closed.Load()) })
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.throttled, bc, dropped, bodyBytes, bodies, refused, stored, conns, connsClosed} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}
