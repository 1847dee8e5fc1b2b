package scaffold

import (
	"fmt"
	"sort"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// Small constructors of YAML nodes, so that the scenario is written with its comments in place.

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func sequence(flow bool, items ...*yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func integer(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

// set adds key: val to m and returns the key node, for a comment.
func set(m *yaml.Node, key string, val *yaml.Node) *yaml.Node {
	k := str(key)
	m.Content = append(m.Content, k, val)
	return k
}

// value is the node of a JSON-like Go value (maps in key order), in flow style.
func value(v any) *yaml.Node {
	switch v := v.(type) {
	case *yaml.Node:
		return v
	case string:
		return str(v)
	case int:
		return integer(v)
	case int64:
		return integer(int(v))
	case float64:
		if v == float64(int64(v)) {
			return integer(int(v))
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(v, 'g', -1, 64)}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case []any:
		n := sequence(true)
		for _, item := range v {
			n.Content = append(n.Content, value(item))
		}
		return n
	case []string:
		n := sequence(true)
		for _, item := range v {
			n.Content = append(n.Content, str(item))
		}
		return n
	case map[string]any:
		n := mapping(true)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			set(n, k, value(v[k]))
		}
		return n
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		return value(m)
	}
	panic(fmt.Sprintf("scaffold: no YAML for %T", v))
}

// ordered is a flow mapping of key, value pairs in the order given.
func ordered(kvs ...any) *yaml.Node {
	m := mapping(true)
	for i := 0; i+1 < len(kvs); i += 2 {
		set(m, kvs[i].(string), value(kvs[i+1]))
	}
	return m
}
