package objects

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/restartsim/restartsim/sim/fielderr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Labels the harness puts on every object it makes, so that a watch or list maps an object to its group.
const (
	GroupLabel = "restartsim.io/group"
	IndexLabel = "restartsim.io/index"
)

// Env is what a run gives the templates.
type Env struct {
	RunID       string
	Region      string
	VpcID       string
	ClusterName string
	// Namespaces are the run's namespaces: object i of a group goes to Namespaces[i mod len(Namespaces)], so
	// that ref between groups of equal or proportional counts stays within a namespace.
	Namespaces []string
	// SubnetIDs are the VPC's subnets, e.g. for a load balancer's subnets: {{index .SubnetIDs 0}}.
	SubnetIDs []string
}

// validationEnv renders the templates once at compile time, before a run exists.
var validationEnv = Env{RunID: "validate", Region: "us-west-2", VpcID: "vpc-0", ClusterName: "validate", Namespaces: []string{"ns-0", "ns-1"},
	SubnetIDs: []string{"subnet-0", "subnet-1", "subnet-2"}}

// Groups are the group names in the order the scenario gives them.
func (f *CompiledGroups) Groups() []string {
	out := make([]string, len(f.groups))
	for i, g := range f.groups {
		out[i] = g.Name
	}
	return out
}

// After are the groups the group comes after.
func (f *CompiledGroups) After(group string) []string {
	if g := f.byName[group]; g != nil {
		return g.After
	}
	return nil
}

// Order is the creation waves: every group of a wave comes after groups of earlier waves only.
func (f *CompiledGroups) Order() [][]string { return f.order }

// Count is the number of objects of a group (0 for an unknown group).
func (f *CompiledGroups) Count(group string) int {
	if g := f.byName[group]; g != nil {
		return g.Count
	}
	return 0
}

// Kind is a group's object kind.
func (f *CompiledGroups) Kind(group string) schema.GroupVersionKind {
	if g := f.byName[group]; g != nil {
		return g.kind.GVK
	}
	return schema.GroupVersionKind{}
}

// AWSKinds are the AWS kinds the fleet's conditions read, for TakeSnapshot.
func (f *CompiledGroups) AWSKinds() []string {
	var out []string
	for _, k := range awsKinds.names {
		for _, g := range f.groups {
			if g.AWS != nil && g.AWS.Kind == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// group finds a group's object at index among the indexes made so far.
func (f *CompiledGroups) group(name string, index int) (*group, error) {
	return f.groupMade(name, index, nil)
}

// groupMade is group with the indexes made per group given by made (nil, or a group it leaves out: as made
// so far).
func (f *CompiledGroups) groupMade(name string, index int, made map[string]int) (*group, error) {
	g := f.byName[name]
	if g == nil {
		return nil, fmt.Errorf("unknown group %q%s", name, f.known())
	}
	n, ok := made[name]
	if !ok {
		n = g.members.made()
	}
	if index < 0 || index >= n {
		return nil, fmt.Errorf("group %q has objects 0 to %d, not %d", name, n-1, index)
	}
	return g, nil
}

// namePath is the field path of the template's metadata.name.
func (g *group) namePath() string { return g.path + ".template.metadata.name" }

// namespace is where object index of g goes.
func (g *group) namespace(env Env, index int) (string, error) {
	if !g.kind.Namespaced {
		return "", nil
	}
	if len(env.Namespaces) == 0 {
		return "", errors.New("the run has no namespaces")
	}
	return env.Namespaces[index%len(env.Namespaces)], nil
}

func (g *group) data(env Env, index int) (Data, error) {
	ns, err := g.namespace(env, index)
	return Data{Index: index, Group: g.Name, Namespace: ns, RunID: env.RunID, Region: env.Region, VpcID: env.VpcID, ClusterName: env.ClusterName,
		SubnetIDs: env.SubnetIDs}, err
}

// renderer resolves ref and refNamespace within one fleet and run.
type renderer struct {
	f   *CompiledGroups
	env Env
	// made bounds the indexes ref reaches per group (nil: as made so far), for checking a create step's
	// template before the run.
	made map[string]int
}

func (r renderer) refName(group string, index int) (string, error) {
	g, err := r.f.groupMade(group, index, r.made)
	if err != nil {
		return "", err
	}
	return r.name(g, index)
}

func (r renderer) refNamespace(group string, index int) (string, error) {
	g, err := r.f.groupMade(group, index, r.made)
	if err != nil {
		return "", err
	}
	return g.namespace(r.env, index)
}

func (r renderer) name(g *group, index int) (string, error) {
	d, err := g.data(r.env, index)
	if err != nil {
		return "", err
	}
	v, err := g.nameTmpl.render(bindFuncs(nil, d), d)
	if err != nil {
		return "", err
	}
	name, _ := v.(string)
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return "", &fielderr.Error{Path: g.namePath(), Msg: fmt.Sprintf("the name %q is not a DNS subdomain: %s", name, strings.Join(msgs, "; "))}
	}
	return name, nil
}

// Key is the namespace and name of a group's object.
func (f *CompiledGroups) Key(env Env, group string, index int) (types.NamespacedName, error) {
	g, err := f.group(group, index)
	if err != nil {
		return types.NamespacedName{}, err
	}
	r := renderer{f: f, env: env}
	name, err := r.name(g, index)
	if err != nil {
		return types.NamespacedName{}, err
	}
	ns, err := g.namespace(env, index)
	return types.NamespacedName{Namespace: ns, Name: name}, err
}

// Render makes a group's object at index: its template rendered, in its namespace, labelled with GroupLabel
// and IndexLabel.
func (f *CompiledGroups) Render(env Env, group string, index int) (*unstructured.Unstructured, error) {
	return f.render(renderer{f: f, env: env}, group, index)
}

func (f *CompiledGroups) render(r renderer, group string, index int) (*unstructured.Unstructured, error) {
	g, err := f.groupMade(group, index, r.made)
	if err != nil {
		return nil, err
	}
	env := r.env
	name, err := r.name(g, index)
	if err != nil {
		return nil, err
	}
	d, err := g.data(env, index)
	if err != nil {
		return nil, err
	}
	v, err := g.tmpl.render(bindFuncs(r, d), d)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: v.(map[string]any)}
	u.SetName(name)
	u.SetNamespace(d.Namespace)
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[GroupLabel], labels[IndexLabel] = g.Name, strconv.Itoa(index)
	u.SetLabels(labels)
	return u, nil
}

// checkRender renders the first and last objects with a stand-in run, so that a template that fails for
// every object (a bad field reference, a ref out of range, a name that is not a DNS name, names that repeat)
// is refused before anything starts.
func (f *CompiledGroups) checkRender(g *group, errs *fielderr.List) {
	var names []string
	for _, i := range []int{0, g.Count - 1} {
		u, err := f.Render(validationEnv, g.Name, i)
		if err != nil {
			var fe *fielderr.Error
			if errors.As(err, &fe) {
				errs.Addf(fe.Path, "object %d: %s", i, fe.Msg)
			} else {
				errs.Addf(fieldPath(g.path, "template"), "object %d: %v", i, err)
			}
			return
		}
		names = append(names, u.GetName())
		g.kind.checkSchema(u.Object, fieldPath(g.path, "template"), errs)
	}
	if g.Count > 1 && names[0] == names[1] {
		errs.Addf(g.namePath(), "objects 0 and %d are both named %q: template the name with {{.Index}}", g.Count-1, names[0])
	}
}
