package scenario

import (
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// position is where a field path's value sits in the file.
type position struct{ line, column int }

// nodeDecoder is implemented by value types with their own scalar syntax (durations, "random").
type nodeDecoder interface {
	decodeNode(*yaml.Node) error
}

// decoder walks a YAML node tree into Go values strictly: unknown fields, duplicate keys, wrong
// kinds and anchors are errors. It records the position of every path it visits.
type decoder struct {
	file string
	pos  map[string]position
	errs ErrorList
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// decodeDocument parses data as exactly one YAML document and decodes it into out.
func (d *decoder) decodeDocument(data []byte, out any) {
	var doc yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.errs = append(d.errs, &FieldError{File: d.file, Line: 1, Column: 1, Msg: "empty file, want a Scenario document"})
			return
		}
		d.syntaxError(err)
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		d.failf(&extra, "", "a file holds one Scenario document; found a second one")
		return
	} else if !errors.Is(err, io.EOF) {
		d.syntaxError(err)
		return
	}
	root := &doc
	if root.Kind == yaml.DocumentNode {
		if len(root.Content) == 0 {
			d.failf(root, "", "empty document, want a Scenario")
			return
		}
		root = root.Content[0]
	}
	d.value(root, reflect.ValueOf(out).Elem(), "")
}

func (d *decoder) syntaxError(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), ": ")
	}
	if line == 0 {
		line = 1
	}
	d.errs = append(d.errs, &FieldError{File: d.file, Line: line, Column: 1, Msg: "invalid YAML: " + msg})
}

func (d *decoder) failf(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, &FieldError{File: d.file, Line: n.Line, Column: n.Column, Path: path, Msg: fmt.Sprintf(format, args...)})
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!int", "!!float":
			return "number " + n.Value
		case "!!bool":
			return "boolean " + n.Value
		}
		return strconv.Quote(n.Value)
	}
	return "nothing"
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

var decoderType = reflect.TypeOf((*nodeDecoder)(nil)).Elem()

func (d *decoder) value(n *yaml.Node, v reflect.Value, path string) {
	d.pos[path] = position{n.Line, n.Column}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		d.failf(n, path, "YAML anchors and aliases are not supported")
		return
	}
	if d.placeholder(n, path) {
		return
	}
	if v.Kind() == reflect.Pointer {
		if isNull(n) {
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(n, v.Elem(), path)
		return
	}
	if v.Type() == rawJSONType {
		d.rawJSON(n, v, path)
		return
	}
	if v.CanAddr() && v.Addr().Type().Implements(decoderType) {
		if err := v.Addr().Interface().(nodeDecoder).decodeNode(n); err != nil {
			d.failf(n, path, "%v", err)
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.structValue(n, v, path)
	case reflect.Slice:
		d.sliceValue(n, v, path)
	case reflect.Map:
		d.mapValue(n, v, path)
	default:
		d.scalarValue(n, v, path)
	}
}

func (d *decoder) sliceValue(n *yaml.Node, v reflect.Value, path string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.failf(n, path, "want a list, got %s", kindName(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, c := range n.Content {
		d.value(c, s.Index(i), fmt.Sprintf("%s[%d]", path, i))
	}
	v.Set(s)
}

// scalarValue decodes a string, boolean or number, refusing YAML's implicit conversions between them.
func (d *decoder) scalarValue(n *yaml.Node, v reflect.Value, path string) {
	switch v.Kind() {
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			d.failf(n, path, "want a string, got %s (quote it if it is meant as text)", kindName(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			d.failf(n, path, "want true or false, got %s", kindName(n))
			return
		}
		b, _ := strconv.ParseBool(strings.ToLower(n.Value))
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		i, ok := wholeNumber(n)
		if !ok {
			d.failf(n, path, "want an integer, got %s", kindName(n))
			return
		}
		if v.OverflowInt(i) {
			d.failf(n, path, "integer %s out of range", n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Float64:
		var f float64
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&f) != nil {
			d.failf(n, path, "want a number, got %s", kindName(n))
			return
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			d.failf(n, path, "want a finite number, got %s", n.Value)
			return
		}
		v.SetFloat(f)
	default:
		d.failf(n, path, "internal error: cannot decode into %s", v.Type())
	}
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

// fieldsOf maps JSON names to struct field indexes.
func fieldsOf(t reflect.Type) map[string]int {
	out := make(map[string]int, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		out[name] = i
	}
	return out
}

func (d *decoder) structValue(n *yaml.Node, v reflect.Value, path string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.failf(n, path, "want a mapping, got %s", kindName(n))
		return
	}
	fields := fieldsOf(v.Type())
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.failf(k, path, "field names must be plain strings, got %s", kindName(k))
			continue
		}
		fp := join(path, k.Value)
		if seen[k.Value] {
			d.failf(k, fp, "duplicate field")
			continue
		}
		seen[k.Value] = true
		idx, ok := fields[k.Value]
		if !ok {
			d.failf(k, fp, "unknown field %q (known: %s)", k.Value, strings.Join(sortedKeys(fields), ", "))
			continue
		}
		d.value(val, v.Field(idx), fp)
		if p, ok := d.pos[fp]; ok && p.line == val.Line && p.column == val.Column {
			// Errors about a field point at its key, which is where a reader looks.
			d.pos[fp] = position{k.Line, k.Column}
		}
	}
}

func (d *decoder) mapValue(n *yaml.Node, v reflect.Value, path string) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.MappingNode {
		d.failf(n, path, "want a mapping, got %s", kindName(n))
		return
	}
	if v.Type().Key().Kind() != reflect.String {
		d.failf(n, path, "internal error: map key type %s", v.Type().Key())
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || isNull(k) {
			d.failf(k, path, "keys must be strings, got %s", kindName(k))
			continue
		}
		kp := fmt.Sprintf("%s[%s]", path, k.Value)
		key := reflect.ValueOf(k.Value).Convert(v.Type().Key())
		if m.MapIndex(key).IsValid() {
			d.failf(k, kp, "duplicate key")
			continue
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		d.value(val, elem, kp)
		d.pos[kp] = position{k.Line, k.Column}
		m.SetMapIndex(key, elem)
	}
	v.Set(m)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// wholeNumber reads an integer, or a number with nothing after its point (5.0): JSON, and so the
// schema, cannot tell the two apart.
func wholeNumber(n *yaml.Node) (int64, bool) {
	var i int64
	if n.Kind != yaml.ScalarNode {
		return 0, false
	}
	switch n.Tag {
	case "!!int":
		return i, n.Decode(&i) == nil
	case "!!float":
		var f float64
		if n.Decode(&f) != nil || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}
