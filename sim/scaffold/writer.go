package scaffold

import (
	"bytes"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/restartsim/restartsim/sim/scenario"
)

// writer builds the scenario document.
type writer struct {
	o         Options
	crds      []*CRD
	help      string
	todo      *todos
	binaryEnv string
	strategy  string
	// bindings is the TargetGroupBinding CRD when chosen: the harness makes bindings itself.
	bindings *CRD
	groups   []*group
}

// group is one object group being written.
type group struct {
	name  string
	crd   *CRD
	known *knownKind
	synth *synth
}

func newWriter(o Options, crds []*CRD, help string) *writer {
	w := &writer{o: o, crds: crds, help: help, todo: &todos{}}
	w.strategy = strategyName(o.Binary, crds)
	if o.Binary != "" {
		w.binaryEnv = strings.ToUpper(strings.ReplaceAll(w.strategy, "-", "_")) + "_BINARY"
	}
	return w
}

func (w *writer) document() ([]byte, error) {
	root := mapping(false)
	root.HeadComment = w.header()
	set(root, "apiVersion", str(scenario.APIVersion))
	set(root, "kind", str(scenario.Kind))
	set(root, "name", str(w.strategy+"-restart"))
	set(root, "seed", integer(1))
	k := set(root, "cluster", value(map[string]any{"crds": w.o.CRDs}))
	k.HeadComment = "The CRDs the controller needs; the groups' templates and conditions are typed by them."
	k = set(root, "aws", value(map[string]any{"profile": "aws-documented", "warmupProfile": "unlimited"}))
	k.HeadComment = "AWS's documented throttles while measuring; none while the fleet converges, so the warm-up is quick."
	set(root, "fleet", w.fleet())
	k = set(root, "controller", w.controller())
	k.HeadComment = "External controllers run on wall-clock timers: keep timeScale at its default, 1."
	set(root, "timeline", w.timeline())
	k = set(root, "thresholds", sequence(false, ordered("metric", "invariant_violations", "max", 0)))
	k.HeadComment = "Fail the run (exit 4) when any object's invariant is false at the end."
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (w *writer) header() string {
	var kinds []string
	for _, c := range w.crds {
		kinds = append(kinds, c.Kind)
	}
	ctrl := "a controller (no --binary given)"
	if w.o.Binary != "" {
		ctrl = strings.TrimSpace(w.o.Binary + " " + strings.Join(w.o.BinaryArgs, " "))
	}
	lines := []string{
		fmt.Sprintf("A first restart scenario for %s, which owns %s.", ctrl, strings.Join(kinds, ", ")),
		"Written by restartsim init: every choice is commented; check them. A value starting with",
		scenario.Placeholder + " could not be derived: fill it in (the file is refused until none is left).",
		"",
		"  restartsim validate -f FILE      (every check simulate makes before it starts; nothing is started)",
	}
	if w.binaryEnv != "" {
		lines = append(lines, fmt.Sprintf("  %s=%s restartsim simulate -f FILE", w.binaryEnv, w.o.Binary))
	}
	return strings.Join(lines, "\n")
}

// fleet is the object groups, or the harness's own bindings for the TargetGroupBinding kind.
func (w *writer) fleet() *yaml.Node {
	f := mapping(false)
	names := map[string]string{}
	for _, c := range w.crds {
		if isTGB(c) {
			w.bindings = c
			continue
		}
		names[strings.ToLower(c.Kind)] = c.Plural
	}
	if w.bindings != nil {
		k := set(f, "targetGroupBindings", integer(w.o.Count))
		k.HeadComment = "TargetGroupBindings are the harness's own kind: it makes them with their Services, pods and target groups."
	} else {
		k := set(f, "targetGroupBindings", integer(0))
		k.HeadComment = "No TargetGroupBindings: only the object groups below."
	}
	set(f, "namespaces", integer(1))
	after := map[string][]string{}
	byName := map[string]*group{}
	var order0 []string
	for _, c := range w.crds {
		if isTGB(c) {
			continue
		}
		g := &group{name: c.Plural, crd: c, known: known[c.Group+"/"+c.Kind]}
		g.synth = &synth{crd: c, known: g.known, groups: names, self: g.name, todo: w.todo}
		byName[g.name], order0 = g, append(order0, g.name)
	}
	// Templates are built in the final order so that placeholders are counted as they appear.
	for _, g := range byName {
		probe := &synth{crd: g.crd, known: g.known, groups: names, self: g.name, todo: &todos{}}
		probe.template("")
		after[g.name] = probe.after
	}
	if len(byName) == 0 {
		return f
	}
	objs := sequence(false)
	for i, n := range order(order0, after) {
		g := byName[n]
		w.groups = append(w.groups, g)
		objs.Content = append(objs.Content, w.objectGroup(g, fmt.Sprintf("fleet.objects[%d]", i)))
	}
	k := set(f, "objects", objs)
	k.HeadComment = "One group per kind. Template strings are Go templates: .Index .VpcID .SubnetIDs, awsName, ref (docs/scenarios.md)."
	return f
}

func (w *writer) objectGroup(g *group, path string) *yaml.Node {
	m := mapping(false)
	set(m, "name", str(g.name))
	k := set(m, "count", integer(w.o.Count))
	k.LineComment = "as --count asked"
	if w.o.Count <= DefaultCount {
		k.LineComment = "small for a first run; raise it once the scenario works"
	}
	t := g.synth.template(path + ".template")
	if len(g.synth.after) > 0 {
		v := value(g.synth.after)
		v.LineComment = "created once the groups it references are ready"
		set(m, "after", v)
	}
	k = set(m, "template", t)
	k.HeadComment = fmt.Sprintf("%s %s (%s): required fields, values AWS needs, references to the other groups.", g.crd.Kind, g.crd.Version, g.crd.File)
	expr, why := ready(g.crd)
	if expr != "" {
		k = set(m, "ready", str(expr))
		k.HeadComment = why
	} else {
		m.Content[len(m.Content)-2].FootComment = why
	}
	w.awsMapping(m, g, path)
	return m
}

// awsMapping adds the group's aws mapping and invariant, when the kind is known.
func (w *writer) awsMapping(m *yaml.Node, g *group, path string) {
	if g.known == nil {
		m.Content[len(m.Content)-2].FootComment = "No aws mapping: the kind is not one whose AWS resource the harness knows\n" +
			"(ACK's ELBv2 and Route53 kinds, EC2 SecurityGroup, S3 Bucket), so\n" +
			"changes are timed by the object's conditions only."
		return
	}
	k := set(m, "aws", w.awsRef(g, path))
	k.HeadComment = "The " + g.known.awsKind + " behind each object, bound to `aws` in the conditions."
	k = set(m, "invariant", str(g.known.invariant))
	k.HeadComment = "Must hold for every object in a steady state and at the end."
}

// awsRef is the group's aws mapping: by name or ARN, or the known pairs with {ref} naming the referenced
// group (placeholders where that kind is not chosen).
func (w *writer) awsRef(g *group, path string) *yaml.Node {
	kn := g.known
	switch {
	case kn.awsFields == nil && kn.awsName != "":
		return ordered("kind", kn.awsKind, "name", kn.awsName)
	case kn.awsFields == nil:
		return ordered("kind", kn.awsKind, "arn", kn.awsARN)
	}
	pairs, refGroup := kn.awsFields, g.synth.groups[kn.ref]
	if refGroup == "" {
		pairs = kn.aloneFields
	}
	kvs := []any{"kind", kn.awsKind}
	for i := 0; i+1 < len(pairs); i += 2 {
		var v any = strings.ReplaceAll(pairs[i+1], "{ref}", refGroup)
		if pairs[i+1] == "" {
			v = w.todo.placeholder(path+".aws."+pairs[i], "%s", kn.alone["aws."+pairs[i]])
		}
		kvs = append(kvs, pairs[i], v)
	}
	return ordered(kvs...)
}
