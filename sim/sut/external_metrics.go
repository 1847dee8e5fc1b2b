package sut

import (
	"bytes"
	"fmt"
	"io"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/restartsim/restartsim/sim/scenario"
)

// QueueDepth scrapes the leader's metrics endpoint.
func (x *external) QueueDepth() map[string]float64 {
	p := x.oldest()
	if p == nil {
		return nil
	}
	mfs, err := x.scrape(p, nil)
	if err != nil {
		return nil
	}
	out := map[string]float64{}
	if v, ok := selectMetric(mfs, x.x.QueueDepth, scenario.DefaultQueueDepthMetric); ok {
		out["workqueue_depth"] = v
	}
	if v, ok := selectMetric(mfs, x.x.DeferredQueueDepth, scenario.DefaultDeferredDepthMetric); ok {
		out["deferred_queue_depth"] = v
	}
	return out
}

// scrape reads p's metrics endpoint: every family, or only families (their _bucket series left
// out, which the work figures do not need and which are most of a histogram's text).
func (x *external) scrape(p *proc, families []string) (map[string]*dto.MetricFamily, error) {
	resp, err := x.metrics.Get(fmt.Sprintf("http://127.0.0.1:%d%s", p.data.MetricsPort, x.x.MetricsPath))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	return parseMetrics(body, families)
}

// parseMetrics parses Prometheus text: every family, or only families (see filterFamilies).
func parseMetrics(body []byte, families []string) (map[string]*dto.MetricFamily, error) {
	if families != nil {
		body = filterFamilies(body, families)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil && len(mfs) == 0 {
		return nil, err
	}
	return mfs, nil
}

// filterFamilies keeps the text-format lines of families: their HELP and TYPE comments and their
// samples but histogram buckets.
func filterFamilies(body []byte, families []string) []byte {
	var out []byte
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i+1], body[i+1:]
		} else {
			body = nil
		}
		name := line
		if bytes.HasPrefix(name, []byte("# HELP ")) || bytes.HasPrefix(name, []byte("# TYPE ")) {
			name = name[7:]
		}
		if i := bytes.IndexAny(name, "{ \n"); i >= 0 {
			name = name[:i]
		}
		n := string(name)
		for _, f := range families {
			if n == f || n == f+"_sum" || n == f+"_count" {
				out = append(out, line...)
				break
			}
		}
	}
	return out
}

// running are the processes that have not ended.
func (x *external) running() []*proc {
	x.mu.Lock()
	defer x.mu.Unlock()
	var out []*proc
	for _, p := range x.procs {
		select {
		case <-p.done:
		default:
			out = append(out, p)
		}
	}
	return out
}

// ScrapeWork implements WorkScraper: every running process's controller-runtime reconcile
// metrics. A process has its own metrics from its start, so its counters are its own work.
func (x *external) ScrapeWork() []WorkPoint {
	var out []WorkPoint
	for _, p := range x.running() {
		at := time.Now()
		mfs, err := x.scrape(p, workFamilies)
		if err != nil {
			continue
		}
		w := workPoint(mfs, controllerRuntimeWork, x.x.ReconcileControllers)
		w.Instance, w.At = p.id, at
		out = append(out, w)
	}
	return out
}

// selectMetric sums the gauge (or untyped) values of sel's series (def's, when sel is nil); false
// when none matches.
func selectMetric(mfs map[string]*dto.MetricFamily, sel *scenario.MetricSelector, def string) (float64, bool) {
	name, labels := def, map[string]string(nil)
	if sel != nil {
		name, labels = sel.Metric, sel.Labels
	}
	mf, ok := mfs[name]
	if !ok {
		return 0, false
	}
	sum, found := 0.0, false
series:
	for _, m := range mf.Metric {
		have := make(map[string]string, len(m.GetLabel()))
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue series
			}
		}
		found = true
		switch {
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		}
	}
	return sum, found
}
