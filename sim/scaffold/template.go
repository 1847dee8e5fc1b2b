package scaffold

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/restartsim/restartsim/sim/scenario"
)

// synth builds one group's template from its kind's schema.
type synth struct {
	crd   *CRD
	known *knownKind // nil for a kind the scaffold knows nothing more of
	// groups are the chosen kinds' group names, by lowercased kind, for references between them.
	groups map[string]string
	self   string // this group's name
	after  []string
	todo   *todos
}

// todos counts the placeholders written and where.
type todos struct{ paths []string }

// placeholder is a string the scenario parser refuses until it is filled in.
func (t *todos) placeholder(path, format string, args ...any) *yaml.Node {
	t.paths = append(t.paths, path)
	return str(fmt.Sprintf("%s %s", scenario.Placeholder, fmt.Sprintf(format, args...)))
}

// awsNaming recognises a description that states AWS's naming rule for the field.
var awsNaming = regexp.MustCompile(`(?i)(32 characters|alphanumeric characters(,| or| and) hyphens)`)

// template is the group's object: apiVersion, kind, metadata.name and the spec its schema needs.
func (s *synth) template(path string) *yaml.Node {
	t := mapping(false)
	set(t, "apiVersion", str(s.crd.APIVersion()))
	set(t, "kind", str(s.crd.Kind))
	set(t, "metadata", value(map[string]any{"name": s.prefix() + "-{{.Index}}"}))
	if s.crd.Schema == nil {
		k := set(t, "spec", s.todo.placeholder(path+".spec", "the CRD has no schema: write the object's spec"))
		k.HeadComment = "No OpenAPI schema in the CRD to derive a spec from."
		return t
	}
	spec, ok := s.crd.Schema.Properties["spec"]
	if !ok {
		return t // a kind without spec (a ConfigMap-like custom resource)
	}
	set(t, "spec", s.object(&spec, "spec", path+".spec", true))
	return t
}

// prefix names the objects: the known one, else the kind's initials (TargetGroup: tg) or its singular.
func (s *synth) prefix() string {
	if s.known != nil {
		return s.known.prefix
	}
	var initials []rune
	for _, r := range s.crd.Kind {
		if r >= 'A' && r <= 'Z' {
			initials = append(initials, r-'A'+'a')
		}
	}
	if len(initials) >= 2 {
		return string(initials)
	}
	return s.crd.Singular
}

// object fills an object: its required properties and those the scaffold knows how to fill.
func (s *synth) object(p *apiextensionsv1.JSONSchemaProps, at, path string, required bool) *yaml.Node {
	m := mapping(false)
	names := make([]string, 0, len(p.Properties))
	for name := range p.Properties {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool { // name first, as people write it
		if (names[i] == "name") != (names[j] == "name") {
			return names[i] == "name"
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		prop := p.Properties[name]
		req := slices.Contains(p.Required, name)
		child := at + "." + name
		if !req && !s.wanted(name, &prop, child) {
			continue
		}
		set(m, name, s.value(name, &prop, child, path+"."+name))
	}
	if len(m.Content) == 0 && !required {
		return nil
	}
	if len(m.Content) > 0 && len(m.Content) <= 6 && flat(m) {
		m.Style = yaml.FlowStyle
	}
	return m
}

// flat reports whether a mapping holds scalars and flow collections only, to be written on one line.
func flat(m *yaml.Node) bool {
	for _, c := range m.Content {
		if c.Kind != yaml.ScalarNode && c.Style != yaml.FlowStyle {
			return false
		}
	}
	return true
}

// wanted reports whether an optional property is filled all the same: a value the kind needs in AWS,
// a reference to another chosen kind, the VPC and subnets, or the resource's AWS name.
func (s *synth) wanted(name string, p *apiextensionsv1.JSONSchemaProps, at string) bool {
	if s.known != nil {
		for k := range s.known.fields {
			if k == at || strings.HasPrefix(k, at+".") || strings.HasPrefix(k, at+"[]") {
				return true
			}
		}
		if _, ok := s.alone()[at]; ok {
			return true
		}
	}
	if _, ok := s.refTarget(name, p); ok {
		return true
	}
	if strings.Count(at, ".") != 1 { // below spec only references are filled
		return false
	}
	return s.vpc(name, p) != nil || s.awsName(name, p) != nil
}

// value is a property's value: the known one, a reference, the VPC or subnets, an AWS name, the
// schema's default, its enum's first value, a filled object or list, else a typed placeholder.
func (s *synth) value(name string, p *apiextensionsv1.JSONSchemaProps, at, path string) *yaml.Node {
	if s.known != nil {
		if v, ok := s.known.fields[at]; ok {
			return value(v)
		}
		if need, ok := s.alone()[at]; ok {
			return s.todo.placeholder(path, "%s", need)
		}
	}
	if group, ok := s.refTarget(name, p); ok {
		if !slices.Contains(s.after, group) {
			s.after = append(s.after, group)
		}
		return value(map[string]any{"from": map[string]any{"name": fmt.Sprintf("{{ref %q .Index}}", group)}})
	}
	if strings.Count(at, ".") == 1 {
		if v := s.vpc(name, p); v != nil {
			return v
		}
		if v := s.awsName(name, p); v != nil {
			return v
		}
	}
	if p.Default != nil {
		var v any
		if json.Unmarshal(p.Default.Raw, &v) == nil {
			return value(v)
		}
	}
	if len(p.Enum) > 0 {
		var v any
		if json.Unmarshal(p.Enum[0].Raw, &v) == nil {
			return value(v)
		}
	}
	switch p.Type {
	case "object":
		if len(p.Properties) > 0 {
			return s.object(p, at, path, true)
		}
	case "array":
		if p.Items != nil && p.Items.Schema != nil {
			return sequence(false, s.value(name, p.Items.Schema, at+"[]", path+"[0]"))
		}
	}
	return s.todo.placeholder(path, "%s", describe(p))
}

// describe says what a value must be: its type and constraints.
func describe(p *apiextensionsv1.JSONSchemaProps) string {
	typ := p.Type
	if typ == "" {
		typ = "value"
	}
	parts := []string{"a required " + typ}
	if p.Format != "" {
		parts = append(parts, "format "+p.Format)
	}
	if p.Pattern != "" {
		parts = append(parts, "pattern "+p.Pattern)
	}
	if p.Minimum != nil {
		parts = append(parts, fmt.Sprintf("minimum %g", *p.Minimum))
	}
	if p.Maximum != nil {
		parts = append(parts, fmt.Sprintf("maximum %g", *p.Maximum))
	}
	if p.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("at most %d characters", *p.MaxLength))
	}
	return strings.Join(parts, ", ")
}

// refTarget is the chosen group an ACK-style reference (fooRef: {from: {name}}) points at.
func (s *synth) refTarget(name string, p *apiextensionsv1.JSONSchemaProps) (string, bool) {
	base, ok := strings.CutSuffix(name, "Ref")
	if !ok {
		return "", false
	}
	from, ok := p.Properties["from"]
	if !ok {
		return "", false
	}
	if _, ok := from.Properties["name"]; !ok {
		return "", false
	}
	group, ok := s.groups[strings.ToLower(base)]
	if !ok || group == s.self {
		return "", false
	}
	return group, true
}

// vpc fills the VPC and subnet fields with the harness's VPC and subnets.
func (s *synth) vpc(name string, p *apiextensionsv1.JSONSchemaProps) *yaml.Node {
	switch strings.ToLower(name) {
	case "vpcid", "vpc":
		if p.Type == "string" {
			return str("{{.VpcID}}")
		}
	case "subnetid", "subnet":
		if p.Type == "string" {
			return str("{{index .SubnetIDs 0}}")
		}
	case "subnets", "subnetids":
		if p.Type == "array" && p.Items != nil && p.Items.Schema != nil && p.Items.Schema.Type == "string" {
			// Two: an application load balancer needs subnets in two zones.
			return value([]string{"{{index .SubnetIDs 0}}", "{{index .SubnetIDs 1}}"})
		}
	}
	return nil
}

// awsName fills a spec field that names the AWS resource: spec.name of an AWS kind, or a *Name
// field whose description states AWS's naming rule.
func (s *synth) awsName(name string, p *apiextensionsv1.JSONSchemaProps) *yaml.Node {
	if p.Type != "string" {
		return nil
	}
	if (name == "name" && awsish(s.crd.Group)) || (strings.HasSuffix(name, "Name") && awsNaming.MatchString(p.Description)) {
		return str(fmt.Sprintf("{{awsName %q}}", s.prefix()))
	}
	return nil
}

// alone are the fields left to fill because the kind the known mapping references is not chosen.
func (s *synth) alone() map[string]string {
	if s.known == nil || s.known.ref == "" || s.groups[s.known.ref] != "" {
		return nil
	}
	return s.known.alone
}
