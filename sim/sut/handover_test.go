package sut

import (
	"context"
	"reflect"
	"testing"
	"time"
)

// fakeControllers records which of its methods the handover called.
type fakeControllers struct {
	name   string
	calls  *[]string
	synced []time.Time
	took   *Takeover
}

func (f *fakeControllers) note(call string) { *f.calls = append(*f.calls, f.name+"."+call) }

func (f *fakeControllers) Start(context.Context) error { f.note("Start"); return nil }
func (f *fakeControllers) AwaitSettled(context.Context, time.Duration) error {
	f.note("AwaitSettled")
	return nil
}
func (f *fakeControllers) StopLeader(context.Context, string) (time.Time, error) {
	f.note("StopLeader")
	return time.Now(), nil
}
func (f *fakeControllers) StartReplacement(context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	f.note("StartReplacement")
	return time.Now(), func(context.Context) (time.Time, error) { return time.Now(), nil }, nil
}
func (f *fakeControllers) Stop()                          { f.note("Stop") }
func (f *fakeControllers) QueueDepth() map[string]float64 { f.note("QueueDepth"); return nil }
func (f *fakeControllers) ElectsLeader() bool             { return f.name == "takeover" }
func (f *fakeControllers) Exited() <-chan struct{}        { return nil }
func (f *fakeControllers) ExitErr() error                 { return nil }
func (f *fakeControllers) Observed() Observations {
	return Observations{CachesSynced: f.synced, Takeover: f.took}
}
func (f *fakeControllers) ScrapeWork() []WorkPoint     { f.note("ScrapeWork"); return nil }
func (f *fakeControllers) ScrapeMemory() []MemoryPoint { f.note("ScrapeMemory"); return nil }
func (f *fakeControllers) numberFrom(int)              { f.note("numberFrom") }
func (f *fakeControllers) startTakeover(ctx context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	if ctx.Value(startKey{}) == nil {
		f.note("startTakeover outside Start's context")
	}
	f.note("startTakeover")
	return f.StartReplacement(ctx)
}

type startKey struct{}

// The converging controller runs until the first restart stops it; the restart's replacement is the
// other controller's first instance, started in Start's context (it outlives the restart step);
// later restarts restart the other controller; the figures come from whichever runs.
func TestHandoverSwitchesAtTheFirstRestart(t *testing.T) {
	var calls []string
	t0 := time.Now()
	conv := &fakeControllers{name: "converge", calls: &calls, synced: []time.Time{t0}}
	take := &fakeControllers{name: "takeover", calls: &calls, synced: []time.Time{t0.Add(time.Second)}, took: &Takeover{Instance: 1, Started: t0}}
	h := &handover{converge: conv, takeover: take, exited: make(chan struct{}), done: make(chan struct{})}

	ctx := context.WithValue(context.Background(), startKey{}, true)
	step := func(do func()) []string {
		calls = nil
		do()
		return calls
	}
	for _, tc := range []struct {
		name string
		do   func()
		want []string
	}{
		{"start", func() { _ = h.Start(ctx) }, []string{"converge.Start"}},
		{"warm-up", func() { _ = h.AwaitSettled(ctx, time.Second); h.ScrapeWork(); h.ScrapeMemory(); h.QueueDepth() },
			[]string{"converge.AwaitSettled", "converge.ScrapeWork", "converge.ScrapeMemory", "converge.QueueDepth"}},
		{"replacement before a stop", func() {
			if _, _, err := h.StartReplacement(context.Background()); err == nil {
				t.Error("a replacement started with nothing stopped")
			}
		}, nil},
		{"first restart", func() {
			_, _ = h.StopLeader(context.Background(), "crash")
			if _, _, err := h.StartReplacement(context.Background()); err != nil {
				t.Error(err)
			}
		}, []string{"converge.StopLeader", "takeover.startTakeover", "takeover.StartReplacement"}},
		{"after it", func() { h.ScrapeWork(); h.ScrapeMemory(); h.QueueDepth() },
			[]string{"takeover.ScrapeWork", "takeover.ScrapeMemory", "takeover.QueueDepth"}},
		{"second restart", func() {
			_, _ = h.StopLeader(context.Background(), "crash")
			_, _, _ = h.StartReplacement(context.Background())
		}, []string{"takeover.StopLeader", "takeover.StartReplacement"}},
		{"stop", h.Stop, []string{"converge.Stop", "takeover.Stop"}},
	} {
		if got := step(tc.do); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: calls %v, want %v", tc.name, got, tc.want)
		}
	}
	seen := h.Observed()
	if seen.Takeover == nil || seen.Takeover.Instance != 1 || len(seen.CachesSynced) != 2 {
		t.Errorf("observed %+v: want the takeover's instance and both controllers' cache syncs", seen)
	}
	if !h.ElectsLeader() {
		t.Error("ElectsLeader is the converging controller's, want the one whose instances replace")
	}
}
