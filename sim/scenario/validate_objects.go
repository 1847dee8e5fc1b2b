package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
)

// AWSResourceKinds are the kinds of AWS resource an object group can map its objects to.
var AWSResourceKinds = []string{"listener", "loadBalancer", "rule", "targetGroup"}

// maxObjects bounds one object group, as maxTGBs bounds the bindings.
const maxObjects = 100000

// objectCount is the number of objects of every group.
func (f *Fleet) objectCount() int {
	n := 0
	for _, g := range f.Objects {
		n += max(0, g.Count)
	}
	return n
}

// ObjectGroup returns the group of fleet.objects named name.
func (f *Fleet) ObjectGroup(name string) (*ObjectGroup, bool) {
	i := slices.IndexFunc(f.Objects, func(g ObjectGroup) bool { return g.Name == name })
	if i < 0 {
		return nil, false
	}
	return &f.Objects[i], true
}

// validateObjectGroups checks the groups' structure; their templates and conditions are compiled
// by compileObjects, which needs the CRDs.
func (v *validator) validateObjectGroups(f *Fleet) {
	seen := map[string]bool{}
	for i := range f.Objects {
		g := &f.Objects[i]
		p := fmt.Sprintf("fleet.objects[%d]", i)
		switch {
		case !dnsLabel.MatchString(g.Name) || len(g.Name) > 40:
			v.add(p+".name", "must be a lowercase DNS label of at most 40 characters, got %q", g.Name)
		case seen[g.Name]:
			v.add(p+".name", "%q names another group too", g.Name)
		}
		seen[g.Name] = true
		if g.Count < 1 || g.Count > maxObjects {
			v.add(p+".count", "must be between 1 and %d, got %d", maxObjects, g.Count)
		}
		if !isJSONObject(g.Template) {
			v.add(p+".template", "required: the whole object (apiVersion, kind, metadata.name, ...)")
		}
		if g.AWS != nil {
			v.oneOf(p+".aws.kind", g.AWS.Kind, AWSResourceKinds)
			if (g.AWS.ARN == "") == (g.AWS.Name == "") {
				v.add(p+".aws", "set one of arn and name (CEL expressions over object)")
			}
		}
	}
	for i, g := range f.Objects {
		for j, dep := range g.After {
			if !seen[dep] {
				v.add(fmt.Sprintf("fleet.objects[%d].after[%d]", i, j), "%q is not a group of fleet.objects", dep)
			}
		}
	}
	if cycle := afterCycle(f.Objects); cycle != "" {
		v.add("fleet.objects", "the groups' after lists form a cycle: %s", cycle)
	}
}

// afterCycle returns a cycle of the groups' After lists as "a → b → a", or "".
func afterCycle(groups []ObjectGroup) string {
	after := map[string][]string{}
	for _, g := range groups {
		after[g.Name] = g.After
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var path []string
	var visit func(string) string
	visit = func(n string) string {
		switch state[n] {
		case visiting:
			i := slices.Index(path, n)
			return joinArrows(append(slices.Clone(path[i:]), n))
		case done:
			return ""
		}
		state[n] = visiting
		path = append(path, n)
		for _, d := range after[n] {
			if c := visit(d); c != "" {
				return c
			}
		}
		path = path[:len(path)-1]
		state[n] = done
		return ""
	}
	for _, g := range groups {
		if c := visit(g.Name); c != "" {
			return c
		}
	}
	return ""
}

func joinArrows(names []string) string {
	var b bytes.Buffer
	for i, n := range names {
		if i > 0 {
			b.WriteString(" → ")
		}
		b.WriteString(n)
	}
	return b.String()
}

func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return len(raw) > 0 && json.Unmarshal(raw, &m) == nil && m != nil
}

// validatePatchChurn checks a churn step of kind patch against its object group.
func (v *validator) validatePatchChurn(s *Scenario, st *Step, p string) {
	if v.given(p + ".services") {
		v.add(p+".services", "does not apply to churn kind %s (it takes count: how many objects)", ChurnPatch)
	}
	g, ok := s.Fleet.ObjectGroup(st.Group)
	if !ok {
		v.add(p+".group", "%q is not a group of fleet.objects", st.Group)
		return
	}
	v.count(p+".count", st.Count, 1, g.Count)
	if !isJSONObject(st.Patch) {
		v.add(p+".patch", "required: a JSON merge patch (an object)")
	}
	if st.Applied == "" {
		v.add(p+".applied", "required: a CEL condition over object and aws that holds once AWS shows the change")
	}
	for i, op := range st.Mutations {
		if !awsOperation.MatchString(op) {
			v.add(fmt.Sprintf("%s.mutations[%d]", p, i), "%q is not an AWS operation name (e.g. ModifyTargetGroup)", op)
		}
	}
}

var awsOperation = regexp.MustCompile(`^[A-Z][A-Za-z0-9]{2,63}$`)
