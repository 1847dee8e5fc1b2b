package sut

import (
	"bytes"
	"fmt"
	"io"

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
	resp, err := x.metrics.Get(fmt.Sprintf("http://127.0.0.1:%d%s", p.data.MetricsPort, x.x.MetricsPath))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil && len(mfs) == 0 {
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
