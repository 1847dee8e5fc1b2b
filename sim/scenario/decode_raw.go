package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"

	yaml "go.yaml.in/yaml/v3"
)

var rawJSONType = reflect.TypeOf(json.RawMessage(nil))

// rawJSON decodes a free-form value (an object template, a merge patch) into JSON, recording the
// position of every path inside it, so that a problem found later in a nested field (a template
// action, a field the kind does not have) is placed on its own line.
func (d *decoder) rawJSON(n *yaml.Node, v reflect.Value, path string) {
	if isNull(n) {
		return
	}
	if !d.recordRaw(n, path) {
		return
	}
	var out any
	if err := n.Decode(&out); err != nil {
		d.failf(n, path, "%v", err)
		return
	}
	data, err := json.Marshal(out)
	if err != nil {
		d.failf(n, path, "not representable as JSON: %v", err)
		return
	}
	v.SetBytes(data)
}

// plainKey is a key a path writes after a dot; any other is written in brackets, as the object
// compiler does.
var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// recordRaw records the positions below n; it refuses anchors and keys that are not strings.
func (d *decoder) recordRaw(n *yaml.Node, path string) bool {
	d.pos[path] = position{n.Line, n.Column}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		d.failf(n, path, "YAML anchors and aliases are not supported")
		return false
	}
	d.placeholder(n, path) // reported; the rest is still recorded, so every placeholder is
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Tag != "!!str" && k.Tag != "!!int" && k.Tag != "!!bool" {
				d.failf(k, path, "want a string key, got %s", kindName(k))
				return false
			}
			child := path + "[" + k.Value + "]"
			if plainKey.MatchString(k.Value) {
				child = join(path, k.Value)
			}
			if !d.recordRaw(n.Content[i+1], child) {
				return false
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if !d.recordRaw(c, fmt.Sprintf("%s[%d]", path, i)) {
				return false
			}
		}
	}
	return true
}
