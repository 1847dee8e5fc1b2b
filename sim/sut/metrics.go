package sut

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// resumeReconciles sums tgb_resume_reconciles_total over every replica and result: only an
// instance started without leader election and with a watermark has any.
func (p *inProcess) resumeReconciles() float64 {
	p.mu.Lock()
	regs := append([]*prometheus.Registry(nil), p.regs...)
	p.mu.Unlock()
	sum := 0.0
	for _, reg := range regs {
		mfs, err := reg.Gather()
		if err != nil {
			continue
		}
		for _, mf := range mfs {
			if mf.GetName() == "tgb_resume_reconciles_total" {
				for _, m := range mf.Metric {
					sum += m.GetCounter().GetValue()
				}
			}
		}
	}
	return sum
}

// gaugeSum sums the gauge series of name whose labels include want.
func gaugeSum(g prometheus.Gatherer, name string, want map[string]string) (float64, bool) {
	mfs, err := g.Gather()
	if err != nil {
		return 0, false
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		sum, found := 0.0, false
		for _, m := range mf.Metric {
			if !labelsMatch(m, want) {
				continue
			}
			found = true
			if m.Gauge != nil {
				sum += m.Gauge.GetValue()
			}
		}
		return sum, found
	}
	return 0, false
}

func labelsMatch(m *dto.Metric, want map[string]string) bool {
	for k, v := range want {
		ok := false
		for _, l := range m.Label {
			if l.GetName() == k && l.GetValue() == v {
				ok = true
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
