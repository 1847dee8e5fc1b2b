package scaffold

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// controller is one external strategy run from the binary with the flags its --help offers.
func (w *writer) controller() *yaml.Node {
	c := mapping(false)
	k := set(c, "replicas", integer(1))
	k.LineComment = "one instance: a crash leaves nobody leading until the replacement starts"
	ext := mapping(false)
	s := mapping(false)
	set(s, "name", str(w.strategy))
	set(s, "external", ext)
	set(c, "strategies", sequence(false, s))
	const path = "controller.strategies[0].external"
	cmd := sequence(false)
	k = set(ext, "command", cmd)
	if w.o.Binary == "" {
		cmd.Content = append(cmd.Content, w.todo.placeholder(path+".command[0]", "the controller binary (run restartsim init --binary to derive its flags)"))
		k.HeadComment = "Without --binary no flags could be derived: add those that point it at {{.Kubeconfig}} and fakeaws."
		set(ext, "env", value(map[string]string{"KUBECONFIG": "{{.Kubeconfig}}"}))
		return c
	}
	k.HeadComment = fmt.Sprintf("From %s --help. Templates are filled in per instance (docs/external-controllers.md).", w.o.Binary)
	bin := str("${" + w.binaryEnv + "}")
	bin.LineComment = "generated with " + w.o.Binary
	cmd.Content = append(cmd.Content, bin)
	for _, a := range w.o.BinaryArgs {
		cmd.Content = append(cmd.Content, str(a))
	}
	var crds []*CRD
	crds = append(crds, w.crds...)
	p := planStrategy(ParseHelp(w.help), crds, w.strategy)
	for _, a := range p.args {
		n := str(a.value)
		n.LineComment = a.why
		cmd.Content = append(cmd.Content, n)
	}
	if len(p.env) > 0 {
		k = set(ext, "env", value(p.env))
		k.HeadComment = strings.Join(p.notes, "\n")
	} else if len(p.notes) > 0 {
		k.FootComment = strings.Join(p.notes, "\n")
	}
	w.leaseAndLogs(ext, p, path)
	return c
}

// leaseAndLogs adds the Lease and, for a controller-runtime controller, its cache-sync log line and work queue.
func (w *writer) leaseAndLogs(ext *yaml.Node, p *plan, path string) {
	switch {
	case p.lease != "":
		k := set(ext, "lease", value(map[string]string{"name": p.lease}))
		k.HeadComment = "The Lease it takes (" + p.leaseWhy + "): \"lease acquired\" in the restart's breakdown."
	case w.leaderElection(p):
		k := set(ext, "lease", value(map[string]any{"name": w.todo.placeholder(path+".lease.name", "the name of the Lease the controller takes (its LeaderElectionID)")}))
		k.HeadComment = "Leader election is on, but the help names no Lease: give its name, or delete this field."
	}
	name := w.reconcilerName()
	if !p.controllerRuntime || name == "" {
		return
	}
	k := set(ext, "cacheSyncedLog", str(fmt.Sprintf(`Starting workers.*"controller": ?"%s"`, name)))
	k.HeadComment = "controller-runtime logs \"Starting workers\" once a controller's caches synced and it leads\n" +
		"(its name is the lowercased kind unless the controller names it otherwise)."
	set(ext, "queueDepth", ordered("metric", "workqueue_depth", "labels", map[string]string{"name": name}))
}

func (w *writer) leaderElection(p *plan) bool {
	for _, a := range p.args {
		if strings.Contains(a.value, "leader") && !strings.Contains(a.value, "=") {
			return true
		}
	}
	return false
}

// reconcilerName is the controller-runtime controller of the first kind: kubebuilder and ACK name it
// after the lowercased kind.
func (w *writer) reconcilerName() string {
	if w.bindings != nil {
		return strings.ToLower(w.bindings.Kind)
	}
	if len(w.groups) > 0 {
		return strings.ToLower(w.groups[0].crd.Kind)
	}
	return ""
}

// timeline is a crash, one change per group while nobody runs, and a wait for the steady state.
func (w *writer) timeline() *yaml.Node {
	t := sequence(false)
	restart := ordered("action", "restart", "mode", "crash", "await", "none", "downtime", "5s")
	restart.HeadComment = "The controller crashes; its replacement starts 5 s later (and waits for the old Lease, if it elects)."
	t.Content = append(t.Content, restart)
	if w.bindings != nil {
		churn := ordered("after", "1s", "action", "churn", "kind", "mixed", "services", 5)
		churn.HeadComment = "Changes to 5 bindings' Services and pods while it is down: pending when the replacement starts."
		t.Content = append(t.Content, churn)
	}
	for i, g := range w.groups {
		t.Content = append(t.Content, w.patchStep(g, i == 0 && w.bindings == nil, fmt.Sprintf("timeline[%d]", len(t.Content))))
	}
	wait := ordered("waitFor", "steadyState", "timeout", "20m")
	wait.HeadComment = "Until every object is ready and every invariant holds again."
	t.Content = append(t.Content, wait)
	return t
}

// patchStep changes a few of a group's objects: a field the aws mapping observes, where the kind is known.
func (w *writer) patchStep(g *group, first bool, path string) *yaml.Node {
	m := mapping(true)
	if first {
		set(m, "after", str("1s"))
	}
	set(m, "action", str("churn"))
	set(m, "kind", str("patch"))
	set(m, "group", str(g.name))
	set(m, "count", integer(min(5, w.o.Count)))
	if g.known == nil || g.known.patch == nil {
		set(m, "patch", w.todo.placeholder(path+".patch", "a JSON merge patch of a spec field, e.g. {spec: {field: v{{.Seq}}}}"))
		set(m, "applied", w.todo.placeholder(path+".applied", "a CEL condition over object (as patched) and aws that holds once the change took effect"))
		m.HeadComment = fmt.Sprintf("A change to %d %s while the controller is down. No field of this kind is known to show in AWS:\n"+
			"choose one, and say when the change is applied.", min(5, w.o.Count), g.name)
		if g.known != nil {
			m.HeadComment += " (" + g.known.why + ".)"
		}
		return m
	}
	set(m, "patch", value(g.known.patch))
	set(m, "applied", str(g.known.applied))
	set(m, "mutations", value(g.known.mutations))
	m.HeadComment = fmt.Sprintf("A change to %d %s while the controller is down: %s.", min(5, w.o.Count), g.name, g.known.why)
	return m
}
