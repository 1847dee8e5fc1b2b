package sim

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/restartsim/restartsim/sim/observe"
)

// phase shows that a step of several seconds is under way (starting an API server, converging or
// saving the fleet): a spinner with the elapsed time on a terminal, cleared when the step ends.
// Elsewhere it prints nothing, the log lines say what runs.
type phase struct {
	bar  *progressbar.ProgressBar
	stop chan struct{}
	wg   sync.WaitGroup
	once sync.Once
}

func startPhase(w io.Writer, what string) *phase { return startPhaseWith(w, what, nil) }

// startConvergence is the phase of a fleet converging, its count of converged bindings beside
// the spinner: minutes at thousands of bindings, which a bare spinner leaves unexplained.
func startConvergence(w io.Writer, what string, chk *observe.Checker) *phase {
	return startPhaseWith(w, what, func() string { return convergenceStatus(what, chk.Converged()) })
}

// convergenceStatus is what, with the count of converged bindings once a check has counted them.
func convergenceStatus(what string, t observe.Tally) string {
	if t.Bindings == 0 {
		return what
	}
	return fmt.Sprintf("%s: %d/%d bindings converged", what, t.Converged, t.Bindings)
}

// startPhaseWith shows status() (what, when nil) beside the spinner, read anew at each tick.
func startPhaseWith(w io.Writer, what string, status func() string) *phase {
	p := &phase{stop: make(chan struct{})}
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return p
	}
	p.bar = progressbar.NewOptions(-1,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionClearOnFinish(),
	)
	p.wg.Go(func() {
		t := time.NewTicker(150 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				if status != nil {
					p.bar.Describe(status())
				}
				_ = p.bar.Add(1) // advances the spinner and the elapsed time
			}
		}
	})
	return p
}

// End clears the spinner; calling it again does nothing.
func (p *phase) End() {
	p.once.Do(func() {
		close(p.stop)
		p.wg.Wait()
		if p.bar != nil {
			_ = p.bar.Finish()
		}
	})
}
