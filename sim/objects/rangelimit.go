package objects

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"text/template"
	"text/template/parse"
)

// MaxRangeIterations bounds the iterations of every {{range}} of one template execution together, nested
// ones included: a value such as {{range 300000000}}{{end}} writes nothing, so the output limit never stops
// it, and would otherwise keep validate busy for a minute.
const MaxRangeIterations = 1 << 20

// rangeBudgetFunc is the template function every range's pipeline is rewritten to end in; its name cannot
// clash with the harness's own functions.
const rangeBudgetFunc = "restartsimRangeBudget"

// limitRanges rewrites every range under n, a node of tree, to pass the value it ranges over through
// rangeBudgetFunc.
func limitRanges(tree *parse.Tree, n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			limitRanges(tree, c)
		}
	case *parse.RangeNode:
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pipe.Pos,
			Args: []parse.Node{parse.NewIdentifier(rangeBudgetFunc).SetTree(tree).SetPos(n.Pipe.Pos)}})
		limitRanges(tree, n.List)
		limitRanges(tree, n.ElseList)
	case *parse.IfNode:
		limitRanges(tree, n.List)
		limitRanges(tree, n.ElseList)
	case *parse.WithNode:
		limitRanges(tree, n.List)
		limitRanges(tree, n.ElseList)
	}
}

// errTooManyIterations ends an execution whose ranges went past MaxRangeIterations.
var errTooManyIterations = fmt.Errorf("ranges over more than %d iterations in all, the limit", MaxRangeIterations)

// rangeBudget returns the budget function of one execution: it counts what each range will iterate over
// (an integer's value, a list's or map's length) and fails past MaxRangeIterations.
func rangeBudget() func(any) (any, error) {
	left := MaxRangeIterations
	return func(v any) (any, error) {
		n := 0
		switch rv := reflect.ValueOf(v); rv.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			n = int(min(max(rv.Int(), 0), int64(MaxRangeIterations)+1))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			n = int(min(rv.Uint(), uint64(MaxRangeIterations)+1))
		case reflect.Slice, reflect.Array, reflect.Map:
			n = rv.Len()
		}
		if left -= n; left < 0 {
			return nil, errTooManyIterations
		}
		return v, nil
	}
}

// ParseBounded parses text as t's template and bounds its ranges; execute it with ExecuteBounded.
func ParseBounded(t *template.Template, text string) (*template.Template, error) {
	t = t.Funcs(template.FuncMap{rangeBudgetFunc: rangeBudget()})
	if _, err := t.Parse(text); err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			limitRanges(tt.Tree, tt.Tree.Root)
		}
	}
	return t, nil
}

// ExecuteBounded executes a template of ParseBounded with a fresh iteration budget. Past the budget it
// returns the budget's error alone: text/template's wrapping would name the internal function.
func ExecuteBounded(t *template.Template, w io.Writer, data any) error {
	t.Funcs(template.FuncMap{rangeBudgetFunc: rangeBudget()})
	err := t.Execute(w, data)
	if errors.Is(err, errTooManyIterations) {
		return errTooManyIterations
	}
	return err
}
