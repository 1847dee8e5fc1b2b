package objects

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	"github.com/restartsim/restartsim/sim/fielderr"
)

// valueTemplate is a JSON value whose string values may be text/templates: the tree is parsed once, and each
// render walks it, executing the templated strings and copying the rest.
type valueTemplate struct {
	root *template.Template // holds every templated string as an associated template named by its path
	tree any                // map[string]any, []any, string, int64, float64, bool, nil or *stringTemplate
}

// stringTemplate is one templated string value.
type stringTemplate struct {
	name string // the associated template's name: the value's field path
	kind string // "" for a string result, else the conversion (int, float, bool) of a whole-value action
}

// typedConversions are the functions whose whole-value use gives a JSON number or boolean.
var typedConversions = map[string]bool{"int": true, "float": true, "bool": true}

// parseValueTemplate parses raw (a JSON value) whose templated strings may call funcs. Problems are added to
// errs at their field paths under path.
func parseValueTemplate(raw json.RawMessage, path string, funcs template.FuncMap, errs *fielderr.List) *valueTemplate {
	compilations.Add(1)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		errs.Addf(path, "not a JSON value: %v", err)
		return nil
	}
	t := &valueTemplate{root: template.New(path).Funcs(funcs).Option("missingkey=error")}
	t.tree = t.parse(v, path, errs)
	return t
}

func (t *valueTemplate) parse(v any, path string, errs *fielderr.List) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = t.parse(e, fieldPath(path, k), errs)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = t.parse(e, indexPath(path, i), errs)
		}
		return out
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, err := v.Float64()
		if err != nil {
			errs.Addf(path, "number %s is out of range", v)
		}
		return f
	case string:
		if !strings.Contains(v, "{{") {
			return v
		}
		tt, err := t.root.New(path).Parse(v)
		if err != nil {
			errs.Addf(path, "malformed template: %s", templateMessage(path, err))
			return v
		}
		limitRanges(tt.Tree, tt.Tree.Root)
		return &stringTemplate{name: path, kind: wholeValueConversion(tt.Tree)}
	default: // bool, nil
		return v
	}
}

// wholeValueConversion is the conversion function ending the pipeline of a value that is one action, e.g.
// "int" for "{{int (add 8000 .Index)}}" or "{{.Index | int}}"; "" otherwise.
func wholeValueConversion(tree *parse.Tree) string {
	if tree == nil || tree.Root == nil || len(tree.Root.Nodes) != 1 {
		return ""
	}
	action, ok := tree.Root.Nodes[0].(*parse.ActionNode)
	if !ok || len(action.Pipe.Decl) > 0 || len(action.Pipe.Cmds) == 0 {
		return ""
	}
	last := action.Pipe.Cmds[len(action.Pipe.Cmds)-1]
	if id, ok := last.Args[0].(*parse.IdentifierNode); ok && typedConversions[id.Ident] {
		return id.Ident
	}
	return ""
}

// templates calls fn for every templated string and its parse tree.
func (t *valueTemplate) templates(fn func(path string, tree *parse.Tree)) {
	if t == nil {
		return
	}
	walkTree(t.tree, func(s *stringTemplate) { fn(s.name, t.root.Lookup(s.name).Tree) })
}

func walkTree(v any, fn func(*stringTemplate)) {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			walkTree(e, fn)
		}
	case []any:
		for _, e := range v {
			walkTree(e, fn)
		}
	case *stringTemplate:
		fn(v)
	}
}

// render executes the templates with data and funcs (bound to this render) and returns a fresh value.
func (t *valueTemplate) render(funcs template.FuncMap, data any) (any, error) {
	root := t.root
	if len(root.Templates()) > 1 { // more than the empty root: something to execute
		var err error
		if root, err = root.Clone(); err != nil {
			return nil, err
		}
		root.Funcs(funcs)
	}
	var buf limitedBuffer
	return renderValue(t.tree, func(s *stringTemplate) (any, error) {
		buf.Reset()
		if err := root.ExecuteTemplate(&buf, s.name, data); err != nil {
			return nil, &fielderr.Error{Path: s.name, Msg: templateMessage(s.name, err)}
		}
		return convert(s, buf.String())
	})
}

// MaxValueBytes bounds one rendered template value: a loop such as {{range 10000000}}a{{end}} is
// stopped at the limit instead of filling memory, and refused before the run.
const MaxValueBytes = 256 << 10

// errValueTooLong ends a render that outgrew MaxValueBytes.
var errValueTooLong = fmt.Errorf("the rendered value is longer than %d bytes, the limit", MaxValueBytes)

// limitedBuffer is a bytes.Buffer that refuses to grow past MaxValueBytes.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > MaxValueBytes {
		return 0, errValueTooLong
	}
	return b.Buffer.Write(p)
}

// WriteString is Write for the strings text/template writes.
func (b *limitedBuffer) WriteString(s string) (int, error) {
	if b.Len()+len(s) > MaxValueBytes {
		return 0, errValueTooLong
	}
	return b.Buffer.WriteString(s)
}

func renderValue(v any, exec func(*stringTemplate) (any, error)) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			r, err := renderValue(e, exec)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			r, err := renderValue(e, exec)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case *stringTemplate:
		return exec(v)
	default:
		return v, nil
	}
}

// convert turns a whole-value conversion's output back into its JSON type.
func convert(s *stringTemplate, out string) (any, error) {
	var v any
	var err error
	switch s.kind {
	case "":
		return out, nil
	case "int":
		v, err = strconv.ParseInt(out, 10, 64)
	case "float":
		v, err = strconv.ParseFloat(out, 64)
	case "bool":
		v, err = strconv.ParseBool(out)
	}
	if err != nil {
		return nil, &fielderr.Error{Path: s.name, Msg: fmt.Sprintf("%s gave %q, not a %s", s.kind, out, s.kind)}
	}
	return v, nil
}

// templateMessage strips text/template's "template: NAME:" prefix: the field path already names the value.
func templateMessage(name string, err error) string {
	if errors.Is(err, errTooManyIterations) {
		return errTooManyIterations.Error()
	}
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "template: "+name+":")
	return strings.ReplaceAll(msg, fmt.Sprintf("executing %q at ", name), "at ")
}
