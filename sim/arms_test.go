package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/scenario"
)

func abScenario(t *testing.T, ab string) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Parse("ab.yaml", []byte(header+`controller:
  strategies:
    - {name: none, checkpoint: none}
    - {name: ckpt, checkpoint: annotation, throttle: "Elastic Load Balancing v2:^Register.*=4:20"}
`+ab+"timeline: [{action: restart}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// The A/B strategy becomes two arms, baseline first, each with its build; other strategies stay.
func TestRunArmsAB(t *testing.T) {
	sc := abScenario(t, `ab:
  strategy: ckpt
  repeats: 3
  baseline: {binary: /base/restartsim}
  candidate: {binary: /cand/restartsim, args: [--mutant=slow-start]}
`)
	arms, err := runArms(sc, sc)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range arms {
		names = append(names, a.st.Name)
	}
	if !slices.Equal(names, []string{"none", "ckpt-baseline", "ckpt"}) {
		t.Fatalf("arms %v", names)
	}
	if arms[1].binary() != "/base/restartsim" || len(arms[1].st.Args) != 0 || arms[2].binary() != "/cand/restartsim" || !slices.Equal(arms[2].st.Args, []string{"--mutant=slow-start"}) {
		t.Errorf("builds: %+v / %+v", arms[1].st, arms[2].st)
	}
	if arms[0].binary() != "" {
		t.Errorf("the other strategy runs in process, got binary %q", arms[0].binary())
	}
	// A B, B A, A B: the pair swaps every other round; other arms keep their place.
	var order []string
	for round := 0; round < rounds(sc); round++ {
		if roundSeed(sc, round) != sc.Seed {
			t.Errorf("round %d: seed %d, want the scenario's %d for every round", round, roundSeed(sc, round), sc.Seed)
		}
		for _, i := range armOrder(sc, arms, round) {
			order = append(order, arms[i].st.Name)
		}
	}
	want := []string{"none", "ckpt-baseline", "ckpt", "none", "ckpt", "ckpt-baseline", "none", "ckpt-baseline", "ckpt"}
	if !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
}

// An in-process strategy has no build to compare: both sides need a binary.
func TestRunArmsABNeedsBinaries(t *testing.T) {
	sc := abScenario(t, "ab: {strategy: ckpt, repeats: 3, candidate: {binary: /cand/restartsim}}\n")
	if _, err := runArms(sc, sc); err == nil || !strings.Contains(err.Error(), "--baseline-binary") {
		t.Errorf("err = %v, want a hint at --baseline-binary", err)
	}
}

// An external controller's A/B side swaps the command's binary and appends the side's arguments,
// leaving the scenario's command as it was.
func TestWithBuildExternal(t *testing.T) {
	orig := &scenario.External{Name: "lbc", Command: []string{"/lbc", "--kubeconfig={{.Kubeconfig}}"}}
	a := arm{st: scenario.Strategy{Name: "lbc"}, ext: orig}
	b, err := a.withBuild("lbc-baseline", scenario.Build{Binary: "/lbc-main", Args: []string{"--v=1"}}, "baseline")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.ext.Command, []string{"/lbc-main", "--kubeconfig={{.Kubeconfig}}", "--v=1"}) || b.ext.Name != "lbc-baseline" || b.st.Name != "lbc-baseline" {
		t.Errorf("baseline side %+v", b.ext)
	}
	if !slices.Equal(orig.Command, []string{"/lbc", "--kubeconfig={{.Kubeconfig}}"}) {
		t.Errorf("the scenario's command changed: %v", orig.Command)
	}
	c, err := a.withBuild("lbc", scenario.Build{}, "candidate")
	if err != nil || c.binary() != "/lbc" {
		t.Errorf("candidate without a build: %v, %v", c.ext, err)
	}
}

// A strategy that converges with another gets that strategy's controller as its converging arm,
// found in the whole scenario when a run selects only the strategy; the host checks cover both.
func TestRunArmsConvergeWith(t *testing.T) {
	sc, err := scenario.Parse("converge.yaml", []byte(header+`controller:
  strategies:
    - {name: none, checkpoint: none, binary: /opt/restartsim}
    - {name: after, checkpoint: annotation, convergeWith: none}
timeline: [{action: restart}]
`))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := selectStrategies(sc, []string{"after"})
	if err != nil {
		t.Fatal(err)
	}
	arms, err := runArms(sel, sc)
	if err != nil {
		t.Fatal(err)
	}
	if len(arms) != 1 || arms[0].st.Name != "after" || arms[0].converge == nil || arms[0].converge.st.Name != "none" ||
		arms[0].converge.binary() != "/opt/restartsim" || arms[0].converge.converge != nil {
		t.Fatalf("arms %+v: want after, converging with none's build", arms)
	}
	if got := withConverging(sc, []string{"after"}); !slices.Equal(got, []string{"after", "none"}) {
		t.Errorf("strategies whose executables the run checks: %v, want after and none", got)
	}
	if names := executables(sc, withConverging(sc, []string{"after"})); len(names) != 1 || names[0].name != "/opt/restartsim" {
		t.Errorf("executables %v: want none's binary", names)
	}
}
