package sim

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
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

func startPhase(w io.Writer, what string) *phase {
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
