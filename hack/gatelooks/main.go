// Command gatelooks replays a finished A/B gate look by look: it judges the first runs of each side
// of a results.json at every look of its plan, with the gate's own code, and prints each look's
// verdict, why, and every check that did not pass. It shows which checks kept a gate sampling and
// what each look would have said, from the runs of one real gate.
//
//	go run ./hack/gatelooks out/ci-gate/run/ci-gate/<time>/results.json
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gatelooks RESULTS.json")
		os.Exit(2)
	}
	if err := run(os.Stdout, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}

func run(w io.Writer, path string) error {
	r, err := results.Load(path)
	if err != nil {
		return err
	}
	if r.AB == nil {
		return fmt.Errorf("%s: no A/B comparison (scenario section ab)", path)
	}
	b, _ := r.Strategy(r.AB.Baseline)
	c, _ := r.Strategy(r.AB.Candidate)
	plan := gate.ABPlan(r.AB)
	for k := 0; k < plan.Looks() && plan.Runs(k) <= min(len(b.Runs), len(c.Runs)); k++ {
		n := plan.Runs(k)
		o, err := gate.JudgeAB(r.AB, b.Runs[:n], c.Runs[:n], gate.ABOptions{Saturated: gate.RanSaturated})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "look %d of %d, %d + %d runs: %s: %s\n", k+1, plan.Looks(), n, n, o.Verdict, o.Reason)
		for _, d := range o.Decided {
			fmt.Fprintf(w, "  decided by: %s\n", d)
		}
		for _, u := range o.Undecided {
			fmt.Fprintf(w, "  undecided: %s\n", u)
		}
	}
	return nil
}
