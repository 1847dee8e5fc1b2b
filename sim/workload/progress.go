package workload

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
	"k8s.io/utils/clock"
)

// progress reports done/total steps: a progress bar on a terminal, a plain line every interval otherwise.
type progress struct {
	total int64
	done  atomic.Int64
	bar   *progressbar.ProgressBar // terminal mode
	w     io.Writer                // line mode
	clock clock.PassiveClock
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newProgress starts reporting; the rate and ETA are measured on clk from now.
func newProgress(w io.Writer, total int64, interval time.Duration, clk clock.PassiveClock) *progress {
	p := &progress{total: total, clock: clk, start: clk.Now(), stop: make(chan struct{})}
	switch {
	case w == nil:
	case isTerminal(w):
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("creating fleet"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("steps"), // Kubernetes writes and AWS calls
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetWidth(30),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)
	default:
		p.w = w
		p.wg.Go(func() {
			t := time.NewTicker(interval)
			defer t.Stop()
			for {
				select {
				case <-p.stop:
					return
				case <-t.C:
					p.line()
				}
			}
		})
	}
	return p
}

func (p *progress) line() {
	done := p.done.Load()
	elapsed := p.clock.Since(p.start)
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(p.total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	pct := 100.0
	if p.total > 0 {
		pct = 100 * float64(done) / float64(p.total)
	}
	fmt.Fprintf(p.w, "creating fleet: %d/%d steps (Kubernetes writes and AWS calls, %.0f%%), %.0f/s, ETA %s\n", done, p.total, pct, rate, eta)
}

// Add counts n steps done.
func (p *progress) Add(n int) {
	p.done.Add(int64(n))
	if p.bar != nil {
		_ = p.bar.Add(n)
	}
}

// Finish stops the reporter, printing a final line in line mode.
func (p *progress) Finish() {
	p.once.Do(func() {
		close(p.stop)
		p.wg.Wait()
		if p.bar != nil {
			_ = p.bar.Finish()
		}
		if p.w != nil {
			p.line()
		}
	})
}
