package sim

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/sim/scenario"
	"k8s.io/utils/ptr"
)

// arm is one column of a run's results: a strategy, and the external controller it runs when it is
// one (nil for the reference controller, in process or by its binary).
type arm struct {
	st  scenario.Strategy
	ext *scenario.External
	// converge is the arm whose controller converges the fleet before the first restart starts
	// this arm's (the strategy's convergeWith; nil: this arm's own controller converges it).
	converge *arm
}

// binary is the executable the arm runs out of process ("" in process).
func (a arm) binary() string {
	if a.ext != nil && len(a.ext.Command) > 0 {
		return a.ext.Command[0]
	}
	return a.st.Binary
}

// describe records what the arm ran in its results' config: binary, arguments and version.
func (a arm) describe(ctx context.Context, config map[string]string) {
	if b := a.binary(); b != "" {
		config["binary"] = b
		config["version"] = a.version(ctx)
	}
	config["sha256"] = a.sha256()
	if c := a.converge; c != nil {
		// Which controller converged the fleet before the restart switched to this arm's.
		if b := c.binary(); b != "" {
			config["convergeBinary"] = b
			config["convergeVersion"] = c.version(ctx)
		}
		config["convergeSHA256"] = c.sha256()
	}
	switch {
	case a.ext != nil && len(a.ext.Command) > 1:
		config["args"] = strings.Join(a.ext.Command[1:], " ")
	case len(a.st.Args) > 0:
		config["args"] = strings.Join(a.st.Args, " ")
	}
}

// sha256 is the hex SHA-256 of the file the arm's binary resolves to, or of the harness's own
// executable when the arm runs in process; "unknown (…)" when it cannot be read.
func (a arm) sha256() string { return fileSHA256(a.binary()) }

// version asks the arm's binary for its version: `version` of a restartsim build, `--version` of
// another controller.
func (a arm) version(ctx context.Context) string {
	if a.ext != nil {
		return binaryVersion(ctx, a.binary(), "--version")
	}
	return binaryVersion(ctx, a.binary(), "version")
}

// runArms lists the scenario's arms: its strategies (or its external controller); with an A/B
// section, the compared strategy as two arms, the baseline side first. A strategy's convergeWith
// is looked up among all's strategies, which a run of some strategies only (sc) may have left out.
func runArms(sc, all *scenario.Scenario) ([]arm, error) {
	var arms []arm
	if x := sc.Controller.External; x != nil {
		arms = []arm{{st: scenario.Strategy{Name: x.Name}, ext: x}}
	} else {
		for _, st := range sc.Controller.Strategies {
			a := strategyArm(st)
			if st.ConvergeWith != "" {
				i := slices.IndexFunc(all.Controller.Strategies, func(o scenario.Strategy) bool { return o.Name == st.ConvergeWith })
				if i < 0 {
					return nil, fmt.Errorf("strategy %s: convergeWith: no strategy %q", st.Name, st.ConvergeWith)
				}
				c := strategyArm(all.Controller.Strategies[i])
				a.converge = &c
			}
			arms = append(arms, a)
		}
	}
	ab := sc.AB
	if ab == nil {
		return arms, nil
	}
	var out []arm
	for _, a := range arms {
		if a.st.Name != ab.Strategy {
			out = append(out, a)
			continue
		}
		base, err := a.withBuild(scenario.BaselineName(a.st.Name), ab.Baseline, "baseline")
		if err != nil {
			return nil, err
		}
		cand, err := a.withBuild(a.st.Name, ab.Candidate, "candidate")
		if err != nil {
			return nil, err
		}
		out = append(out, base, cand)
	}
	return out, nil
}

// strategyArm is the arm of one strategy, its external controller named after it.
func strategyArm(st scenario.Strategy) arm {
	a := arm{st: st}
	if st.External != nil {
		x := *st.External
		x.Name = st.Name
		a.ext = &x
	}
	return a
}

// withBuild is the arm as one A/B side runs it: named name, with b's binary and arguments.
func (a arm) withBuild(name string, b scenario.Build, side string) (arm, error) {
	out := a
	out.st.Name = name
	if a.ext != nil {
		x := *a.ext
		x.Name = name
		x.Command = append([]string(nil), a.ext.Command...)
		if b.Binary != "" {
			x.Command[0] = b.Binary
		}
		x.Command = append(x.Command, b.Args...)
		out.ext = &x
		return out, nil
	}
	if b.Binary != "" {
		out.st.Binary = b.Binary
	}
	if out.st.Binary == "" {
		// In process against out of process would compare start-ups, not builds.
		return arm{}, fmt.Errorf("ab.%s: strategy %q runs in process; give the %s build's restartsim binary (ab.%s.binary, or --%s-binary)", side, a.st.Name, side, side, side)
	}
	out.st.Args = append(append([]string(nil), a.st.Args...), b.Args...)
	return out, nil
}

// resumes reports whether a runs the reference controller with the resume fast path.
func resumes(a arm) bool { return a.ext == nil && ptr.Deref(a.st.Resume, false) }

// rounds is the number of times each arm runs.
func rounds(sc *scenario.Scenario) int {
	if sc.AB != nil {
		return sc.AB.Repeats
	}
	return sc.Repeats
}

// roundSeed is the seed of a round: repeats use the seeds Seed, Seed+1, ...; an A/B comparison
// runs every round on the seed's fleet and timeline, so the two sides differ by build and noise only.
func roundSeed(sc *scenario.Scenario, round int) int64 {
	if sc.AB != nil {
		return sc.Seed
	}
	return sc.Seed + int64(round)
}

// armOrder is the order the arms run in during a round. The A/B sides alternate as A B B A A B …,
// so that a drift of the machine's speed during the run (a neighbour starting, a cache warming up)
// weighs on both alike and neither always runs first after a fleet restore.
func armOrder(sc *scenario.Scenario, arms []arm, round int) []int {
	order := make([]int, len(arms))
	for i := range order {
		order[i] = i
	}
	if sc.AB == nil || round%2 == 0 {
		return order
	}
	b := abArm(arms, scenario.BaselineName(sc.AB.Strategy))
	order[b], order[b+1] = order[b+1], order[b] // the candidate follows its baseline in arms
	return order
}

// abArm is the index of the arm named name.
func abArm(arms []arm, name string) int {
	for i, a := range arms {
		if a.st.Name == name {
			return i
		}
	}
	return -1
}
