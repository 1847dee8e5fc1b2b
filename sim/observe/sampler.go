package observe

import (
	"time"

	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/scenario"
)

// QueueDepther is a controller under test whose queue depths can be sampled.
type QueueDepther interface{ QueueDepth() map[string]float64 }

// Sampler polls queue depths once per scenario second.
type Sampler struct {
	stopCh  chan struct{}
	done    chan struct{}
	samples []measure.Sample
}

// StartSampler samples ctrls' queue depths every scenario second of clock from t0.
func StartSampler(ctrls QueueDepther, clock scenario.Clock, t0 time.Time) *Sampler {
	s := &Sampler{stopCh: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tk := clock.NewTicker(time.Second)
		defer tk.Stop()
		for {
			select {
			case <-s.stopCh:
				return
			case now := <-tk.C():
				at := clock.Seconds(t0, now)
				for series, v := range ctrls.QueueDepth() {
					s.samples = append(s.samples, measure.Sample{At: at, Series: series, Value: v})
				}
			}
		}
	}()
	return s
}

// Stop ends the sampling and returns the samples.
func (s *Sampler) Stop() []measure.Sample {
	close(s.stopCh)
	<-s.done
	return s.samples
}
