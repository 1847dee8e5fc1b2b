package record

import (
	"sync"
	"time"

	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
)

// Moment is when a recorder starts.
type Moment int

const (
	// AtControllerStart is before the controller instances start: what they do while they first
	// sync their caches is recorded too.
	AtControllerStart Moment = iota
	// AtMeasuredPhase is the measured phase's start, the scenario's second zero.
	AtMeasuredPhase
)

// Controllers is what the recorders read of the controller under test.
type Controllers interface {
	observe.QueueDepther
	sut.WorkScraper
	sut.MemoryScraper
}

// Sources are what a Set's recorders read.
type Sources struct {
	Controllers Controllers
	// Clock times the samples in scenario seconds.
	Clock scenario.Clock
	// RunDir is the directory the run owns, and Parallel how many runs run side by side (the
	// machine's record of the CPU the run got).
	RunDir   string
	Parallel int
}

// Conversion turns what the recorders saw into the Input's terms.
type Conversion struct {
	// Seen is what the controller instances showed of themselves: which instance took over after
	// the first restart, and where its work was read.
	Seen sut.Observations
	// ToSec converts a wall time into scenario seconds.
	ToSec func(time.Time) float64
}

// Recorder records one thing from Start until Stop.
type Recorder interface {
	// Start begins recording; t0 is the scenario's second zero (for a recorder started before
	// the measured phase, the moment it starts).
	Start(t0 time.Time)
	// Stop ends recording and keeps what was recorded.
	Stop()
	// Collect adds the record to in.
	Collect(in *measure.Input, c Conversion)
}

// registration is one recorder of the factory.
type registration struct {
	name  string
	start Moment
	build func(Sources) Recorder
}

// registry lists every recorder; a Set stops them in this order.
var registry = []registration{
	{"queue-depth", AtMeasuredPhase, newQueueDepth},
	{"restart-work", AtMeasuredPhase, newWork},
	{"memory", AtControllerStart, newMemory},
	{"machine", AtMeasuredPhase, newMachine},
}

// Set is one run's recorders, every registered one.
type Set struct {
	mu   sync.Mutex
	recs []*entry
}

type entry struct {
	registration
	rec              Recorder
	started, stopped bool
}

// New builds every registered recorder, none started.
func New(src Sources) *Set {
	s := &Set{}
	for _, r := range registry {
		s.recs = append(s.recs, &entry{registration: r, rec: r.build(src)})
	}
	return s
}

// Start starts the recorders registered to start at moment m.
func (s *Set) Start(m Moment, t0 time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.recs {
		if e.start == m && !e.started {
			e.rec.Start(t0)
			e.started = true
		}
	}
}

// Stop stops every started recorder, in registration order. It may be called more than once: a
// failed run's cleanup calls it too.
func (s *Set) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.recs {
		if e.started && !e.stopped {
			e.rec.Stop()
			e.stopped = true
		}
	}
}

// Collect adds every stopped recorder's record to in.
func (s *Set) Collect(in *measure.Input, c Conversion) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.recs {
		if e.stopped {
			e.rec.Collect(in, c)
		}
	}
}
