package observe

import (
	"time"

	"github.com/restartsim/restartsim/sim/measure"
)

// QueueDepther is a controller under test whose queue depths can be sampled.
type QueueDepther interface{ QueueDepth() map[string]float64 }

// Sampler polls queue depths once per scenario second.
type Sampler struct {
	stopCh  chan struct{}
	done    chan struct{}
	samples []measure.Sample
}

// StartSampler samples ctrls' queue depths every scenario second from t0, at time scale scale.
func StartSampler(ctrls QueueDepther, t0 time.Time, scale float64) *Sampler {
	s := &Sampler{stopCh: make(chan struct{}), done: make(chan struct{})}
	period := time.Duration(float64(time.Second) / scale)
	go func() {
		defer close(s.done)
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-s.stopCh:
				return
			case now := <-tk.C:
				at := now.Sub(t0).Seconds() * scale
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
