package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const base = `apiVersion: restartsim/v1
kind: Scenario
name: t
seed: 7
timeScale: 10
aws:
  profile: aws-documented
  warmupProfile: unlimited
fleet:
  targetGroupBindings: 10
  networkingShare: 0.5
controller:
  replicas: 2
  strategies:
    - {name: a, checkpoint: none}
    - {name: b}
timeline:
  - {action: restart, mode: crash}
  - {after: 1s, action: churn, services: 2}
  - {waitFor: steadyState, timeout: 1m}
thresholds:
  - {metric: ttfmr_seconds, max: 30s, strategies: [b]}
gate:
  - {metric: ttfmr_seconds, strategy: b, relativeTo: a, max: 0.5}
`

func TestParseValid(t *testing.T) {
	s, err := Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if s.Controller.Strategies[1].Checkpoint != CheckpointAnnotation {
		t.Errorf("default checkpoint = %q", s.Controller.Strategies[1].Checkpoint)
	}
	if s.Fleet.PodsPerService != DefaultPodsPerService || s.Cluster.Envtest == nil || s.AWS.Region != DefaultRegion {
		t.Errorf("defaults not applied: %+v", s.Fleet)
	}
	if got := s.Timeline[1].After.Duration; got != time.Second {
		t.Errorf("after = %v", got)
	}
	if s.Thresholds[0].Max.Value != 30 || !s.Thresholds[0].Max.Duration {
		t.Errorf("threshold = %+v", s.Thresholds[0].Max)
	}
	if len(s.Gate) != 1 || *s.Gate[0].Max != 0.5 {
		t.Errorf("gate = %+v", s.Gate)
	}
}

func TestParseLeaderElection(t *testing.T) {
	in := strings.Replace(base, "{name: b}", "{name: b, leaderElection: true, leaseDuration: 50s, renewDeadline: 30s, retryPeriod: 10s, releaseOnCancel: false, warmup: true}", 1)
	s, err := Parse("t.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Controller.Strategies[1]
	if !*st.LeaderElection || st.LeaseDuration.Duration != 50*time.Second || st.RenewDeadline.Duration != 30*time.Second ||
		st.RetryPeriod.Duration != 10*time.Second || *st.ReleaseOnCancel || !*st.Warmup {
		t.Errorf("leader election fields %+v", st)
	}
}

func TestParseResumeAndAwait(t *testing.T) {
	in := strings.NewReplacer(
		"{name: b}", "{name: b, resume: true, resumeInterval: 2s}",
		"{action: restart, mode: crash}", "{action: restart, mode: crash, await: none, downtime: 3s}",
	).Replace(base)
	s, err := Parse("t.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Controller.Strategies[1]
	if st.Resume == nil || !*st.Resume || st.ResumeInterval == nil || st.ResumeInterval.Duration != 2*time.Second {
		t.Errorf("strategy b = %+v", st)
	}
	if s.Controller.Strategies[0].Resume != nil {
		t.Errorf("strategy a resume = %v, want unset", *s.Controller.Strategies[0].Resume)
	}
	if got := s.Timeline[0].Await; got != AwaitNone {
		t.Errorf("await = %q, want none", got)
	}
	if got := s.Timeline[0].Downtime; got == nil || got.Duration != 3*time.Second {
		t.Errorf("downtime = %v, want 3s", got)
	}
	// Unset: the restart awaits the new leader, as before the field existed.
	if s, err = Parse("t.yaml", []byte(base)); err != nil {
		t.Fatal(err)
	}
	if got := s.Timeline[0].Await; got != AwaitLeader {
		t.Errorf("default await = %q, want leader", got)
	}
}

func TestParseMutantDelay(t *testing.T) {
	for _, m := range []string{"slow-early-exit", "slow-start"} {
		s, err := Parse("t.yaml", []byte(strings.Replace(base, "{name: b}", "{name: b, mutant: "+m+", mutantDelay: 20ms}", 1)))
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		if st := s.Controller.Strategies[1]; st.Mutant != m || st.MutantDelay == nil || st.MutantDelay.Duration != 20*time.Millisecond {
			t.Errorf("%s: strategy b = %+v", m, st)
		}
	}
	// Unset: the controller's default for the mutant.
	s, err := Parse("t.yaml", []byte(strings.Replace(base, "{name: b}", "{name: b, mutant: slow-start}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if s.Controller.Strategies[1].MutantDelay != nil {
		t.Errorf("mutantDelay = %v, want unset", s.Controller.Strategies[1].MutantDelay)
	}
}

func TestParseAppendsFinalWait(t *testing.T) {
	s, err := Parse("t.yaml", []byte(strings.Replace(base, "  - {waitFor: steadyState, timeout: 1m}\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	last := s.Timeline[len(s.Timeline)-1]
	if last.WaitFor != WaitForSteadyState || last.Timeout.Duration != DefaultWaitTimeout {
		t.Errorf("last step = %+v", last)
	}
}

// TestParseErrors has one case per validation rule: the edit applied to base, and the expected
// "line:column: path: message" fragment of the error.
func TestParseErrors(t *testing.T) {
	sub := func(old, new string) func(string) string {
		return func(s string) string {
			if !strings.Contains(s, old) {
				panic("test bug: base lacks " + old)
			}
			return strings.Replace(s, old, new, 1)
		}
	}
	add := func(extra string) func(string) string { return func(s string) string { return s + extra } }
	step := func(yaml string) func(string) string {
		return sub("  - {waitFor: steadyState, timeout: 1m}\n", "  - "+yaml+"\n")
	}
	cases := []struct {
		name string
		edit func(string) string
		want string
	}{
		{"syntax", sub("seed: 7", "seed: 7\n bad: 1"), `t.yaml:5:1: invalid YAML`},
		{"syntax unclosed", sub("kind: Scenario", "kind: [Scenario"), `t.yaml:1:1: invalid YAML`},
		{"empty", func(string) string { return "" }, `t.yaml:1:1: empty file`},
		{"two documents", add("---\nname: x\n"), `a file holds one Scenario document`},
		{"not a mapping", func(string) string { return "- a\n" }, `t.yaml:1:1: want a mapping`},
		{"unknown field", add("bogus: 1\n"), `t.yaml:25:1: bogus: unknown field "bogus"`},
		{"unknown nested field", sub("  networkingShare: 0.5", "  networkingShare: 0.5\n  tgbs: 3"), `t.yaml:12:3: fleet.tgbs: unknown field`},
		{"duplicate field", sub("seed: 7", "seed: 7\nseed: 8"), `t.yaml:5:1: seed: duplicate field`},
		{"wrong type int", sub("seed: 7", "seed: seven"), `t.yaml:4:7: seed: want an integer, got "seven"`},
		{"wrong type string", sub("name: t", "name: 12"), `t.yaml:3:7: name: want a string, got number 12`},
		{"wrong type bool", sub("{name: b}", "{name: b, priorityQueue: 1}"), `controller.strategies[1].priorityQueue: want true or false`},
		{"wrong type list", sub("services: 2}", "services: [2]}"), `timeline[1].services: want an integer, got a list`},
		{"int overflow", sub("seed: 7", "seed: 99999999999999999999"), `seed: want an integer`},
		{"float nan", sub("timeScale: 10", "timeScale: .nan"), `timeScale: want a finite number`},
		{"bad duration", sub("after: 1s", "after: soon"), `t.yaml:19:13: timeline[1].after: want a duration`},
		{"anchor", sub("seed: 7", "seed: &x 7\nrepeats: *x"), `anchors and aliases are not supported`},
		{"apiVersion", sub("restartsim/v1", "restartsim/v2"), `t.yaml:1:1: apiVersion: must be "restartsim/v1"`},
		{"kind", sub("kind: Scenario", "kind: Other"), `t.yaml:2:1: kind: must be "Scenario"`},
		{"name", sub("name: t", "name: Not_A_Label"), `t.yaml:3:1: name: must be a lowercase DNS label`},
		{"name missing", sub("name: t\n", ""), `name: must be a lowercase DNS label`},
		{"timeScale zero", sub("timeScale: 10", "timeScale: 0"), `t.yaml:5:1: timeScale: must be greater than 0`},
		{"timeScale negative", sub("timeScale: 10", "timeScale: -1"), `timeScale: must be greater than 0`},
		{"repeats", add("repeats: -1\n"), `t.yaml:25:1: repeats: must be between 1 and`},
		{"cluster both", add("cluster: {envtest: {}, kubeconfig: {path: x}}\n"), `t.yaml:25:1: cluster: set one of envtest and kubeconfig`},
		{"profile", sub("profile: aws-documented", "profile: fast"), `t.yaml:7:3: aws.profile: "fast" is not one of`},
		{"warmup profile", sub("warmupProfile: unlimited", "warmupProfile: x"), `aws.warmupProfile: "x" is not one of`},
		{"healthyAfter", sub("  warmupProfile: unlimited", "  warmupProfile: unlimited\n  healthyAfter: -1s"), `aws.healthyAfter: must be between 0`},
		{"override burst", sub("  warmupProfile: unlimited", "  warmupProfile: unlimited\n  overrides: {RegisterTargets: {rate: 1, burst: -1}}"), `aws.overrides[RegisterTargets].burst: must not be negative`},
		{"override zero burst", sub("  warmupProfile: unlimited", "  warmupProfile: unlimited\n  overrides: {RegisterTargets: {rate: 1, burst: 0}}"), `aws.overrides[RegisterTargets].burst: must be at least 1`},
		{"latency", sub("  warmupProfile: unlimited", "  warmupProfile: unlimited\n  latency: {'*': {base: -1ms}}"), `aws.latency[*].base: must be between 0 and 1h`},
		{"fault rate", sub("  warmupProfile: unlimited", "  warmupProfile: unlimited\n  faults: [{operation: '*', rate: 2}]"), `aws.faults[0].rate: must be in (0, 1]`},
		{"fault operation", sub("  warmupProfile: unlimited", "  warmupProfile: unlimited\n  faults: [{rate: 0.5}]"), `aws.faults[0].operation: required`},
		{"tgbs zero", sub("targetGroupBindings: 10", "targetGroupBindings: 0"), `t.yaml:10:3: fleet.targetGroupBindings: must be between 1`},
		{"tgbs negative", sub("targetGroupBindings: 10", "targetGroupBindings: -5"), `fleet.targetGroupBindings: must be between 1`},
		{"pods zero", sub("  networkingShare: 0.5", "  networkingShare: 0.5\n  podsPerService: 0"), `t.yaml:12:3: fleet.podsPerService: must be between 1 and 1000, got 0`},
		{"namespaces", sub("  networkingShare: 0.5", "  networkingShare: 0.5\n  namespaces: 11"), `fleet.namespaces: must be between 1 and 10`},
		{"nodes", sub("  networkingShare: 0.5", "  networkingShare: 0.5\n  nodes: -1"), `fleet.nodes: must be between 1`},
		{"concurrency", sub("  networkingShare: 0.5", "  networkingShare: 0.5\n  concurrency: 5000"), `fleet.concurrency: must be between 1 and 1024`},
		{"share", sub("networkingShare: 0.5", "networkingShare: 1.5"), `t.yaml:11:3: fleet.networkingShare: must be a fraction`},
		{"fleet beyond the VPC", sub("targetGroupBindings: 10", "targetGroupBindings: 30000"),
			`t.yaml:9:1: fleet.podsPerService: 90000 pods do not fit in vpcCIDR 10.0.0.0/16 outside nodeCIDR`},
		{"nodes beyond the node range", sub("  networkingShare: 0.5", "  networkingShare: 0.5\n  nodes: 600"), `t.yaml:12:3: fleet.nodes: 600 nodes`},
		{"instance bindings beyond the NodePorts", sub("targetGroupBindings: 10", "targetGroupBindings: 3000\n  instanceShare: 1"),
			`t.yaml:11:3: fleet.instanceShare: 3000 instance TGBs exceed the 2768 NodePorts`},
		{"timeline empty", sub("timeline:\n  - {action: restart, mode: crash}\n  - {after: 1s, action: churn, services: 2}\n  - {waitFor: steadyState, timeout: 1m}\n", "timeline: []\n"),
			`t.yaml:17:1: timeline: required: at least one action`},
		{"timeline of waits", sub("timeline:\n  - {action: restart, mode: crash}\n  - {after: 1s, action: churn, services: 2}\n", "timeline:\n"),
			`t.yaml:17:1: timeline: required: at least one action`},
		{"timeline missing", sub("timeline:\n  - {action: restart, mode: crash}\n  - {after: 1s, action: churn, services: 2}\n  - {waitFor: steadyState, timeout: 1m}\n", ""),
			`t.yaml:1:1: timeline: required: at least one action`},
		{"replicas", sub("replicas: 2", "replicas: 0"), `t.yaml:13:3: controller.replicas: must be between 1 and 10`},
		{"warmup workers", sub("replicas: 2", "replicas: 1\n  warmupWorkers: 0"), `t.yaml:14:3: controller.warmupWorkers: must be between 1 and 1000, got 0`},
		{"warmup workers with a standby", sub("replicas: 2", "replicas: 2\n  warmupWorkers: 16"), `t.yaml:14:3: controller.warmupWorkers: needs one reference controller replica`},
		{"no strategies", sub("    - {name: a, checkpoint: none}\n    - {name: b}\n", "    []\n"), `controller.strategies: required`},
		{"strategies and external", sub("  replicas: 2", "  replicas: 2\n  external: {command: [x]}"), `controller: set strategies (reference controller) or external, not both`},
		{"strategy name", sub("{name: b}", "{name: B}"), `t.yaml:16:8: controller.strategies[1].name: must be a lowercase DNS label`},
		{"strategy dup", sub("{name: b}", "{name: a}"), `controller.strategies[1].name: duplicate strategy name "a"`},
		{"checkpoint", sub("checkpoint: none", "checkpoint: always"), `controller.strategies[0].checkpoint: "always" is not one of`},
		{"strategy duration", sub("{name: b}", "{name: b, deferralDelay: -1m}"), `controller.strategies[1].deferralDelay: must be between 0`},
		{"strategy workers", sub("{name: b}", "{name: b, maxConcurrentReconciles: -3}"), `controller.strategies[1].maxConcurrentReconciles: must be between 1`},
		{"strategy attempts", sub("{name: b}", "{name: b, maxAttempts: 0}"), `controller.strategies[1].maxAttempts: must be between 1 and 100`},
		{"throttle", sub("{name: b}", "{name: b, throttle: 'elbv2:^Reg=fast:1'}"), `t.yaml:16:17: controller.strategies[1].throttle: invalid rate in "elbv2:^Reg=fast:1"`},
		{"throttle regex", sub("{name: b}", "{name: b, throttle: 'elbv2:(=1:1'}"), `controller.strategies[1].throttle: invalid operation regex in "elbv2:(=1:1": error parsing regexp`},
		// Each passed the validator's own pattern and then failed once envtest and the fleet were up, or
		// reached the controller as "unlimited" or as a wait of millions of hours.
		{"throttle NaN rate", sub("{name: b}", "{name: b, throttle: 'a:b=NaN:1'}"), `t.yaml:16:17: controller.strategies[1].throttle: invalid rate in "a:b=NaN:1"`},
		{"throttle vanishing rate", sub("{name: b}", "{name: b, throttle: 'EC2:.*=1e-300:5'}"), `controller.strategies[1].throttle: invalid rate in "EC2:.*=1e-300:5"`},
		{"throttle dotted rate", sub("{name: b}", "{name: b, throttle: 'EC2:^Describe.*=1.2.3:5'}"), `controller.strategies[1].throttle: invalid rate in "EC2:^Describe.*=1.2.3:5"`},
		{"throttle burst beyond int", sub("{name: b}", "{name: b, throttle: 'EC2:a=1:99999999999999999999'}"), `controller.strategies[1].throttle: invalid burst in "EC2:a=1:99999999999999999999"`},
		{"throttle scaled past the bound", sub("{name: b}", "{name: b, throttle: 'EC2:a=500000:1'}"), `controller.strategies[1].throttle: rate of EC2:a scaled by 10 is 5e+06 per second`},
		{"lease timings without leader election", sub("{name: b}", "{name: b, leaderElection: false, leaseDuration: 50s}"), `t.yaml:16:7: controller.strategies[1]: leaseDuration, renewDeadline, retryPeriod, releaseOnCancel and warmup apply only with leader election`},
		{"warmup without leader election", sub("{name: b}", "{name: b, leaderElection: false, warmup: true}"), `controller.strategies[1]: leaseDuration, renewDeadline, retryPeriod, releaseOnCancel and warmup apply only with leader election`},
		{"lease shorter than the default renew deadline", sub("{name: b}", "{name: b, leaderElection: true, leaseDuration: 5s}"), `controller.strategies[1].leaseDuration: lease timings 5s/10s/2s: need leaseDuration > renewDeadline > 1.2 × retryPeriod`},
		{"lease zero", sub("{name: b}", "{name: b, leaderElection: true, leaseDuration: 0s}"), `controller.strategies[1].leaseDuration: must be positive`},
		{"mutant", sub("{name: b}", "{name: b, mutant: gremlin}"), `controller.strategies[1].mutant: "gremlin" is not one of`},
		{"mutantDelay without mutant", sub("{name: b}", "{name: b, mutantDelay: 5ms}"), `t.yaml:16:17: controller.strategies[1].mutantDelay: applies only with mutant slow-early-exit or slow-start`},
		{"mutantDelay with another mutant", sub("{name: b}", "{name: b, mutant: defer-drift, mutantDelay: 5ms}"), `controller.strategies[1].mutantDelay: applies only with mutant slow-early-exit or slow-start`},
		{"mutantDelay zero", sub("{name: b}", "{name: b, mutant: slow-start, mutantDelay: 0s}"), `controller.strategies[1].mutantDelay: must be positive`},
		{"mutantDelay negative", sub("{name: b}", "{name: b, mutant: slow-early-exit, mutantDelay: -5ms}"), `controller.strategies[1].mutantDelay: must be between 0`},
		{"external timeScale", externalCase(10, "[ctl, '--kubeconfig={{.Kubeconfig}}']"), `timeScale: must be 1 with controller.external`},
		{"external command", externalCase(1, "[]"), `controller.external.command: required`},
		{"external template", externalCase(1, "['{{.Nope}}']"), `controller.external.command[0]: bad template`},
		{"external template syntax", externalCase(1, "['{{.Kubeconfig']"), `controller.external.command[0]: bad template`},
		{"step both", step("{action: wait, waitFor: steadyState, duration: 1s}"), `t.yaml:20:5: timeline[2]: set action or waitFor, not both`},
		{"step neither", step("{after: 1s}"), `timeline[2]: set action`},
		{"step unknown action", step("{action: explode}"), `t.yaml:20:6: timeline[2].action: "explode" is not one of`},
		{"step at and after", step("{action: wait, at: 1s, after: 1s, duration: 1s}"), `timeline[2].after: set at or after, not both`},
		{"step within without random", step("{action: wait, within: 1s, duration: 1s}"), `timeline[2].within: only applies to at: random`},
		{"step at order", sub("- {action: restart, mode: crash}", "- {action: restart, at: 5s}\n  - {action: restart, at: 2s}"), `timeline[1].at: 2s is before`},
		{"step bad at", step("{action: wait, at: later, duration: 1s}"), `timeline[2].at: want a duration or "random"`},
		{"step foreign field", step("{action: restart, services: 3}"), `t.yaml:20:23: timeline[2].services: does not apply to action restart`},
		{"waitFor foreign field", sub("{waitFor: steadyState, timeout: 1m}", "{waitFor: steadyState, timeout: 1m, mode: crash}"), `timeline[2].mode: does not apply to waitFor`},
		{"waitFor kind", sub("waitFor: steadyState", "waitFor: dawn"), `timeline[2].waitFor: "dawn" is not one of leader, steadyState`},
		{"waitFor timeout", sub("timeout: 1m", "timeout: 0s"), `timeline[2].timeout: must be positive`},
		{"stalledAfter on leader", sub("waitFor: steadyState, timeout: 1m", "waitFor: leader, timeout: 1m, stalledAfter: 10s"), `timeline[2].stalledAfter: applies to waitFor steadyState only`},
		{"stalledAfter zero", sub("timeout: 1m", "timeout: 1m, stalledAfter: 0s"), `timeline[2].stalledAfter: must be positive`},
		{"stalledAfter past timeout", sub("timeout: 1m", "timeout: 1m, stalledAfter: 2m"), `timeline[2].stalledAfter: 2m0s is not shorter than the timeout (1m0s)`},
		{"stalledAfter on an action", sub("services: 2}", "services: 2, stalledAfter: 1s}"), `timeline[1].stalledAfter: does not apply to action churn`},
		{"restart mode", sub("mode: crash", "mode: gently"), `t.yaml:18:23: timeline[0].mode: "gently" is not one of`},
		{"restart await", sub("mode: crash}", "mode: crash, await: later}"), `t.yaml:18:36: timeline[0].await: "later" is not one of leader, none`},
		{"await on churn", sub("services: 2}", "services: 2, await: none}"), `t.yaml:19:45: timeline[1].await: does not apply to action churn`},
		{"negative downtime", sub("mode: crash}", "mode: crash, downtime: -1s}"), `t.yaml:18:36: timeline[0].downtime: must be between 0 and`},
		{"downtime on churn", sub("services: 2}", "services: 2, downtime: 1s}"), `t.yaml:19:45: timeline[1].downtime: does not apply to action churn`},
		{"await on waitFor", sub("timeout: 1m}", "timeout: 1m, await: none}"), `timeline[2].await: does not apply to waitFor`},
		{"resume type", sub("{name: b}", "{name: b, resume: 1}"), `controller.strategies[1].resume: want true or false`},
		{"resumeInterval without resume", sub("{name: b}", "{name: b, resumeInterval: 5s}"), `t.yaml:16:17: controller.strategies[1].resumeInterval: applies only with resume: true`},
		{"resumeInterval zero", sub("{name: b}", "{name: b, resume: true, resumeInterval: 0s}"), `controller.strategies[1].resumeInterval: must be positive`},
		{"resumeInterval negative", sub("{name: b}", "{name: b, resume: true, resumeInterval: -1s}"), `controller.strategies[1].resumeInterval: must be between 0`},
		{"handover replicas", func(s string) string {
			return strings.Replace(strings.Replace(s, "replicas: 2", "replicas: 1", 1), "mode: crash", "mode: leaderHandover", 1)
		}, `timeline[0].mode: leaderHandover needs controller.replicas of at least 2`},
		{"churn kind", sub("services: 2}", "services: 2, kind: melt}"), `timeline[1].kind: "melt" is not one of`},
		{"churn services", sub("services: 2}", "services: 11}"), `timeline[1].services: must be between 1 and 10`},
		{"container pods", step("{action: containerRestart, pods: -1}"), `timeline[2].pods: must be between 1 and 30`},
		{"drift kind", step("{action: awsDrift, kind: flood}"), `timeline[2].kind: "flood" is not one of`},
		{"churn duration", step("{action: churn, kind: rotate, duration: 5s}"), `timeline[2].duration: applies to churn kind recreateService only`},
		{"stale gate without gates", step("{action: churn, kind: staleGate}"), `timeline[2].kind: staleGate needs TGBs with readiness gates`},
		{"replace node without instance TGBs", step("{action: churn, kind: replaceNode}"), `t.yaml:20:21: timeline[2].kind: replaceNode needs TGBs with instance targets: set fleet.instanceShare above 0`},
		{"replace node with too few TGBs for an instance one", func(s string) string {
			return step("{action: churn, kind: replaceNode}")(sub("  networkingShare: 0.5", "  networkingShare: 0.5\n  instanceShare: 0.01")(s))
		}, `t.yaml:21:21: timeline[2].kind: replaceNode needs TGBs with instance targets: fleet.instanceShare 0.01 of 10 TGBs plans none`},
		{"replace node count", withInstances(step("{action: churn, kind: replaceNode, count: 4}")), `t.yaml:21:40: timeline[2].count: must be between 1 and 3, got 4`},
		{"replace node services", withInstances(step("{action: churn, kind: replaceNode, services: 2}")), `t.yaml:21:40: timeline[2].services: does not apply to churn kind replaceNode (it takes count`},
		{"churn count", step("{action: churn, kind: rotate, count: 2}"), `t.yaml:20:35: timeline[2].count: applies to churn kind replaceNode only`},
		{"drift count", step("{action: awsDrift, count: 100}"), `timeline[2].count: must be between 1 and 10`},
		{"drift revoke needs networking", func(s string) string {
			return step("{action: awsDrift, kind: revokeIngress}")(strings.Replace(s, "networkingShare: 0.5", "networkingShare: 0", 1))
		}, `timeline[2].kind: revokeIngress needs TGBs with networking rules`},
		{"wait duration", step("{action: wait}"), `timeline[2].duration: required`},
		{"fault missing", step("{action: awsFault}"), `timeline[2].fault: required`},
		{"fault kind", step("{action: awsFault, fault: meteor}"), `timeline[2].fault: "meteor" is not one of`},
		{"fault profile", step("{action: awsFault, fault: profile, profile: x}"), `timeline[2].profile: "x" is not one of`},
		{"fault limits", step("{action: awsFault, fault: limit}"), `timeline[2].limits: required`},
		{"fault limit burst", step("{action: awsFault, fault: limit, limits: {elbv2/registration: {rate: 1, burst: -2}}}"), `timeline[2].limits[elbv2/registration].burst: must not be negative`},
		{"fault errors rate", step("{action: awsFault, fault: errors, rate: 0}"), `timeline[2].rate: must be in (0, 1]`},
		{"fault outage duration", step("{action: awsFault, fault: outage}"), `timeline[2].duration: required for an outage`},
		{"fault outage service", step("{action: awsFault, fault: outage, duration: 5s, awsServices: [s3]}"), `timeline[2].awsServices[0]: "s3" is not one of`},
		{"fault latency", step("{action: awsFault, fault: latency}"), `timeline[2].latency: required`},
		{"fault latency negative", step("{action: awsFault, fault: latency, latency: {base: 1s, jitter: -1s}}"), `timeline[2].latency.jitter: must be between 0`},
		{"fault duration", step("{action: awsFault, fault: profile, profile: unlimited, duration: -1s}"), `timeline[2].duration: must be between 0`},
		{"threshold metric", sub("metric: ttfmr_seconds, max: 30s", "metric: speed, max: 30s"), `t.yaml:22:6: thresholds[0].metric: unknown metric "speed"`},
		{"threshold duration on count", sub("metric: ttfmr_seconds, max: 30s", "metric: aws_calls_total, max: 30s"), `thresholds[0].max: aws_calls_total is a count`},
		{"threshold negative", sub("max: 30s", "max: -3"), `thresholds[0].max: must not be negative`},
		{"threshold missing max", sub("max: 30s, ", ""), `thresholds[0].max: required`},
		{"unapplied changes: a whole count", sub("metric: ttfmr_seconds, max: 30s", "metric: unapplied_changes, max: 1.5"),
			`t.yaml:22:33: thresholds[0].max: unapplied_changes counts changes: give a whole number, got 1.5`},
		{"unapplied changes: not a duration", sub("metric: ttfmr_seconds, max: 30s", "metric: unapplied_changes, max: 30s"), `thresholds[0].max: unapplied_changes is a count`},
		{"unapplied changes: declared twice", sub("{metric: ttfmr_seconds, max: 30s, strategies: [b]}",
			"{metric: unapplied_changes, max: 1}\n  - {metric: unapplied_changes, max: 2, strategies: [b]}"),
			`thresholds[1].metric: strategy "b" already has a threshold on unapplied_changes (thresholds[0])`},
		{"orphans without a group holding AWS resources", sub("metric: ttfmr_seconds, max: 30s", "metric: orphaned_resources, max: 10"),
			`thresholds[0].metric: orphaned_resources counts the AWS resources of deleted objects, but no group of fleet.objects names one (aws)`},
		{"orphans: a whole count", sub("metric: ttfmr_seconds, max: 30s", "metric: orphaned_resources, max: 2.5"),
			`thresholds[0].max: orphaned_resources counts AWS resources: give a whole number, got 2.5`},
		{"orphans: declared twice", sub("{metric: ttfmr_seconds, max: 30s, strategies: [b]}",
			"{metric: orphaned_resources, max: 1}\n  - {metric: orphaned_resources, max: 2, strategies: [b]}"),
			`thresholds[1].metric: strategy "b" already has a threshold on orphaned_resources (thresholds[0])`},
		{"threshold bad max", sub("max: 30s", "max: lots"), `thresholds[0].max: want a number or a duration`},
		{"threshold strategy", sub("strategies: [b]", "strategies: [zzz]"), `thresholds[0].strategies[0]: unknown strategy "zzz"`},
		{"gate metric", sub("{metric: ttfmr_seconds, strategy", "{metric: nope, strategy"), `gate[0].metric: unknown metric`},
		{"gate strategy", sub("strategy: b,", "strategy: q,"), `gate[0].strategy: unknown strategy "q"`},
		{"gate relativeTo", sub("relativeTo: a", "relativeTo: q"), `gate[0].relativeTo: unknown strategy "q"`},
		{"gate no limit", sub(", max: 0.5}", "}"), `gate[0]: set max, maxRegression or both`},
		{"gate negative", sub("max: 0.5}", "max: 0.5, maxRegression: -1, slack: -1}"), `gate[0].maxRegression: must not be negative`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tc.edit(base)))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
			assertPlaced(t, err)
		})
	}
}

// withInstances gives base's fleet instance TGBs (one line more, before the edit).
func withInstances(edit func(string) string) func(string) string {
	return func(s string) string {
		return edit(strings.Replace(s, "  networkingShare: 0.5", "  networkingShare: 0.5\n  instanceShare: 0.5", 1))
	}
}

// TestParseReplaceNode: churn kind replaceNode counts nodes (count, default 1) and takes no services.
func TestParseReplaceNode(t *testing.T) {
	for _, tc := range []struct {
		step  string
		count int
	}{
		{"{action: churn, kind: replaceNode, count: 2}", 2},
		{"{action: churn, kind: replaceNode}", 1},
	} {
		in := withInstances(func(s string) string {
			return strings.Replace(s, "{after: 1s, action: churn, services: 2}", tc.step, 1)
		})(base)
		s, err := Parse("t.yaml", []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", tc.step, err)
		}
		st := s.Timeline[1]
		if st.Kind != ChurnReplaceNode || st.Count != tc.count || st.Services != 0 {
			t.Errorf("%s: kind %q count %d services %d, want replaceNode %d 0", tc.step, st.Kind, st.Count, st.Services, tc.count)
		}
	}
}

func externalCase(scale int, command string) func(string) string {
	return func(string) string {
		return strings.NewReplacer("TS", itoa(scale), "CMD", command).Replace(`apiVersion: restartsim/v1
kind: Scenario
name: ext
timeScale: TS
fleet: {targetGroupBindings: 3}
controller:
  external: {command: CMD}
timeline:
  - {action: restart}
`)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

var placed = regexp.MustCompile(`^\S+\.yaml:\d+:\d+: `)

// assertPlaced checks that every error names file:line:column.
func assertPlaced(t *testing.T, err error) {
	t.Helper()
	var list ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %T is not a non-empty ErrorList: %v", err, err)
	}
	for _, e := range list {
		if !placed.MatchString(e.Error()) {
			t.Errorf("error %q does not name file:line:column", e.Error())
		}
	}
}

func TestShippedScenariosParse(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	mutants, _ := filepath.Glob("../../scenarios/mutants/*.yaml")
	files = append(files, mutants...)
	if len(files) == 0 {
		t.Skip("no scenarios")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(base))
	f.Add([]byte(sideBySide))
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("f.yaml", data)
		if err == nil {
			if s == nil {
				t.Fatal("nil scenario without error")
			}
			return
		}
		var list ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			t.Fatalf("error %T is not a non-empty ErrorList: %v", err, err)
		}
		for _, e := range list {
			if e.File != "f.yaml" || e.Line < 1 || e.Column < 1 {
				t.Fatalf("error does not name a place: %q", e.Error())
			}
		}
	})
}
