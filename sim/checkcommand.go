package sim

import (
	"errors"
	"fmt"
	"strings"
	"text/template/parse"

	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Check runs the checks a run makes of Options.Scenario before it starts anything, and starts
// and creates nothing: the strategies asked for, the timeScale an external controller needs, the
// executables the strategies run (their templates rendered with what is known before the start),
// the extra CRD files, the kubeconfig and envtest assets named, and that cluster.endpointSlices
// fits the cluster. The scenario's own checks (decoding, validation, templates and CEL compiled
// against the CRDs) ran when it was parsed. What Check leaves to the run: finding envtest assets
// no flag or field names, and on a kubeconfig cluster, what the cluster serves. Every problem of
// the scenario's fields is in one scenario.ErrorList; the error is marked runerr.BadInput.
func Check(opts Options) error {
	_, _, err := check(opts.setDefaults())
	return err
}

// check is Check on defaulted options, returning the scenario with only the strategies asked for
// and their arms.
func check(o Options) (*scenario.Scenario, []arm, error) {
	sc := o.Scenario
	if sc == nil {
		return nil, nil, runerr.BadInput(errors.New("sim: Options.Scenario is required"))
	}
	if sc.Controller.External != nil && sc.TimeScale != 1 {
		return nil, nil, runerr.BadInput(fmt.Errorf("timeScale %g: external controllers run on wall-clock timers; use timeScale 1", sc.TimeScale))
	}
	if len(o.Strategies) > 0 {
		var err error
		if sc, err = selectStrategies(sc, o.Strategies); err != nil {
			return nil, nil, runerr.BadInput(err)
		}
	}
	if err := checkManagerSetups(o, sc); err != nil {
		return nil, nil, runerr.BadInput(err)
	}
	if err := checkHost(o, o.Scenario, sc); err != nil {
		return nil, nil, err
	}
	arms, err := runArms(sc, o.Scenario)
	if err != nil {
		return nil, nil, runerr.BadInput(err)
	}
	if !onKubeconfig(o, sc) && sc.Cluster.EndpointSlices == scenario.EndpointSlicesCluster {
		return nil, nil, runerr.BadInput(fmt.Errorf("cluster.endpointSlices: %q needs a cluster with kube-controller-manager (--kubeconfig); envtest has none", scenario.EndpointSlicesCluster))
	}
	return sc, arms, nil
}

// knownTemplateData is the template data of a command known before the run starts; the rest
// (kubeconfig, endpoint, ports, certificate directory, VPC, namespace) exists only once it has.
func knownTemplateData(o Options, sc *scenario.Scenario) scenario.TemplateData {
	cr := runCreds(o, sc)
	return scenario.TemplateData{Region: cr.Region, AccessKeyID: cr.AccessKey, SecretAccessKey: cr.SecretKey, ClusterName: "restartsim"}
}

// startFields are the template fields whose values the run makes at its start.
var startFields = map[string]string{
	"CertDir":     "a directory the run creates at each start for the controller's serving certificates",
	"Kubeconfig":  "a file the run writes at its start",
	"AWSEndpoint": "fakeaws's URL", "Port": "a port", "MetricsPort": "a port", "HealthPort": "a port",
	"VpcID": "a VPC ID", "Namespace": "a namespace", "Replica": "a replica number",
}

// checkCommand checks the executable a command template names: rendered with what is known before
// the start and checked like a plain path. A path that begins with a value the run makes at its
// start (such as {{.CertDir}}) cannot hold a program the user put there, and is refused; one that
// uses such a value elsewhere is checked when the process starts.
func checkCommand(text string, known scenario.TemplateData) error {
	if !strings.Contains(text, "{{") {
		return checkExecutable(text)
	}
	used, first, ok := templateFields(text)
	if !ok {
		return nil // the scenario's validation reports the template itself
	}
	if why, ok := startFields[first]; ok && (first == "CertDir" || first == "Kubeconfig") {
		return fmt.Errorf("%q: {{.%s}} is %s, so no executable can be there", text, first, why)
	}
	for _, f := range used {
		if _, ok := startFields[f]; ok {
			return nil
		}
	}
	name, ok := renderKnown(text, known)
	if !ok {
		return nil // as above
	}
	if err := checkExecutable(name); err != nil {
		return fmt.Errorf("%q (rendered): %w", text, err)
	}
	return nil
}

// templateFields lists the data fields a template uses, and the field its text begins with ("" if
// it begins with text).
func templateFields(text string) (used []string, first string, ok bool) {
	trees, err := parse.Parse("command", text, "{{", "}}", map[string]any{})
	if err != nil {
		return nil, "", false
	}
	t := trees["command"]
	if t == nil || t.Root == nil {
		return nil, "", true
	}
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n != nil {
				for _, c := range n.Cmds {
					walk(c)
				}
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.FieldNode:
			used = append(used, n.Ident[0])
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		}
	}
	walk(t.Root)
	if len(t.Root.Nodes) > 0 {
		if a, ok := t.Root.Nodes[0].(*parse.ActionNode); ok && len(a.Pipe.Cmds) == 1 && len(a.Pipe.Cmds[0].Args) == 1 {
			if f, ok := a.Pipe.Cmds[0].Args[0].(*parse.FieldNode); ok {
				first = f.Ident[0]
			}
		}
	}
	return used, first, true
}

// renderKnown renders a command template with the values known before the start; false when it does not
// render, which the scenario's validation reports at the template's own field.
func renderKnown(text string, known scenario.TemplateData) (string, bool) {
	name, err := scenario.RenderCommand("command", text, known)
	return name, err == nil
}
