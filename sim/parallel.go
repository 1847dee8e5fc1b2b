package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/scenario"
)

// blockRun is one strategy run of a block run side by side: an arm in a round, on its seed's
// fleet snapshot.
type blockRun struct {
	round, arm int
	seed       int64
	seq        int // numbers the strategy run, as runRounds does
	again      bool
	out        *strategyOutcome
	wall       time.Duration
}

// runBlocks is runRounds with up to o.Parallel runs side by side. The runs up to the next look
// (or all of them, without A/B) form a block, queued round by round in armOrder, so that the A/B
// sides alternate within every group of runs that share the machine. Each run has its own API
// server, etcd, fakeaws, controller, ports and directory, as one after another. A look waits for
// its block. An A/B run whose machine was saturated is made once more and not judged
// (results.AB.StarvedRuns), while such runs are few (transient): beside other runs, a starved run
// says more of the machine than of the build.
func runBlocks(ctx context.Context, p *preparedRun, dir string, res *results.Results) ([][]*strategyOutcome, error) {
	o, sc, arms := p.o, p.sc, p.arms
	runs := make([][]*strategyOutcome, len(arms))
	snaps := map[int64]*fleetSnapshot{}
	defer func() {
		for _, s := range snaps {
			if s != nil {
				_ = os.RemoveAll(s.etcdDir)
			}
		}
	}()
	if res.AB != nil {
		res.AB.Parallel = o.Parallel
	}
	var roundSecs []float64
	seq := 0
	for done, target := 0, rounds(sc); done < target; {
		if res.AB != nil && done >= 2 && !roundFits(res.AB, res.Scenario.StartedAt, roundSecs) {
			res.AB.Stopped = "budget"
			fmt.Fprintf(o.Stdout, "A/B: the budget ends the runs after %d + %d\n", done, done)
			abLook(o.Stdout, res, arms, runs, roundSecs)
			break
		}
		var block []*blockRun
		for round := done; round < target; round++ {
			seed := roundSeed(sc, round)
			if _, ok := snaps[seed]; !ok {
				snap, err := seedSnapshot(ctx, o, sc, len(arms), seed, filepath.Join(dir, "fleet-"+strconv.FormatInt(seed, 10)))
				if err != nil {
					return nil, fmt.Errorf("fleet snapshot: %w", err)
				}
				if snaps[seed] = snap; snap != nil {
					res.Scenario.FleetSetupSeconds += measure.Round3(snap.stats.Elapsed.Seconds())
				}
			}
			for _, i := range armOrder(sc, arms, round) {
				seq++
				block = append(block, &blockRun{round: round, arm: i, seed: seed, seq: seq})
			}
		}
		start := time.Now()
		if err := runSideBySide(ctx, p, dir, res, block, snaps); err != nil {
			return nil, err
		}
		for _, b := range block {
			runs[b.arm] = append(runs[b.arm], b.out)
			addRun(res, arms[b.arm], b.out, b.wall)
		}
		for range target - done {
			roundSecs = append(roundSecs, time.Since(start).Seconds()/float64(target-done))
		}
		if done = target; res.AB != nil {
			target = max(target, abLook(o.Stdout, res, arms, runs, roundSecs))
		}
	}
	return runs, nil
}

// runSideBySide runs the block's runs, up to o.Parallel at a time in the block's order, each
// into its blockRun; the first error stops the rest. An A/B run on a saturated machine is run
// once more in its place.
func runSideBySide(ctx context.Context, p *preparedRun, dir string, res *results.Results, block []*blockRun, snaps map[int64]*fleetSnapshot) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	queue := make(chan *blockRun, 2*len(block))
	for _, b := range block {
		queue <- b
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	left, finished := len(block), 0
	for range min(p.o.Parallel, len(block)) {
		wg.Go(func() {
			for {
				var b *blockRun
				select {
				case <-ctx.Done():
					return
				case b = <-queue:
				}
				if b == nil { // closed: every run is done
					return
				}
				a := p.arms[b.arm]
				again := map[bool]string{true: "-again"}[b.again]
				p.o.Logger.Info(fmt.Sprintf("strategy %s, repeat %d%s, %d side by side", a.st.Name, b.round+1, again, p.o.Parallel))
				t0 := time.Now()
				out, err := runStrategy(ctx, p.o, p.sc, a, b.seed, runDir(p.sc, dir, a, b.round, again), snaps[b.seed], p.cluster.forStrategy(b.seq))
				if err != nil {
					cancel(fmt.Errorf("strategy %s: %w", a.st.Name, err))
					return
				}
				mu.Lock()
				finished++
				if res.AB != nil && !b.again && starved(out) && transient(res.AB.StarvedRuns+1, len(res.AB.Order)+finished) {
					res.AB.StarvedRuns++
					b.again = true
					queue <- b
				} else {
					b.out, b.wall = out, time.Since(t0)
					if left--; left == 0 {
						close(queue)
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

// transient reports whether starved runs of finished are few enough to make again: at most a
// quarter (and the first). On a machine loaded throughout, runs made again would starve as well;
// the saturation rule then judges the runs as they are, and stops the comparison.
func transient(starved, finished int) bool { return starved <= max(1, finished/4) }

// starved reports a run whose machine was saturated (results.SaturationRule).
func starved(out *strategyOutcome) bool {
	m := out.out.Summary.Machine
	return m != nil && m.Saturated
}

// MaxParallel bounds --parallel (scenario.MaxABParallel).
const MaxParallel = scenario.MaxABParallel

// CheckParallel checks a --parallel value; 0 leaves it to the scenario's ab.parallel.
func CheckParallel(n int) error {
	if n < 0 || n > MaxParallel {
		return fmt.Errorf("--parallel must be 0 to %d, got %d", MaxParallel, n)
	}
	return nil
}
