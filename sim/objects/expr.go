package objects

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"github.com/restartsim/restartsim/sim/fielderr"
)

// expr is one compiled CEL expression of a group or patch.
type expr struct {
	text string
	path string // its field path, for messages
	prog cel.Program
	// parts are the field chains it reads (object.spec.x, aws.healthCheck.path), whose values explain a result.
	parts []exprPart
	// refs says it calls a reference function, so that its evaluation needs an observation of the objects.
	refs bool
	// literal is the string the expression is when it is nothing but a string literal, checked at compile
	// time where a field takes one of a few values (a record set's type).
	literal   string
	isLiteral bool
}

type exprPart struct {
	text string
	prog cel.Program
}

// maxParts bounds how many values a message shows.
const maxParts = 6

// compile compiles text as an expression of type want; a problem is a fielderr.Error at path.
func (e *celEnv) compile(text, path string, want *cel.Type) (*expr, *fielderr.Error) {
	compilations.Add(1)
	checked, iss := e.env.Compile(text)
	if iss.Err() != nil {
		return nil, &fielderr.Error{Path: path, Msg: "does not compile: " + issueText(iss)}
	}
	if msg := argTypeProblem(checked.NativeRep()); msg != "" {
		return nil, &fielderr.Error{Path: path, Msg: "does not compile: " + msg}
	}
	if out := checked.OutputType(); !out.IsExactType(want) && !out.IsExactType(cel.DynType) {
		return nil, &fielderr.Error{Path: path, Msg: fmt.Sprintf("must be a %s expression, but its type is %s", want, out)}
	}
	prog, err := e.env.Program(checked, cel.CostLimit(CostLimit))
	if err != nil {
		return nil, &fielderr.Error{Path: path, Msg: "does not compile: " + err.Error()}
	}
	x := &expr{text: text, path: path, prog: prog, refs: usesRefs(checked.NativeRep().Expr())}
	if root := checked.NativeRep().Expr(); root.Kind() == ast.LiteralKind {
		x.literal, x.isLiteral = fmt.Sprint(root.AsLiteral().Value()), root.AsLiteral().Type() == types.StringType
	}
	for _, c := range fieldChains(checked.NativeRep().Expr()) {
		a, iss := e.env.Compile(c)
		if iss.Err() != nil {
			continue
		}
		if p, err := e.env.Program(a, cel.CostLimit(CostLimit)); err == nil {
			x.parts = append(x.parts, exprPart{text: c, prog: p})
		}
	}
	return x, nil
}

// issueText is the compile errors on one line each, "undefined field" said as a reader would.
func issueText(iss *cel.Issues) string {
	var msgs []string
	for _, e := range iss.Errors() {
		msg := strings.Replace(e.Message, "undefined field", "refers to an unknown field", 1)
		msgs = append(msgs, fmt.Sprintf("%s (at %d:%d)", msg, e.Location.Line(), e.Location.Column()+1))
	}
	return strings.Join(msgs, "; ")
}

// activation binds object, aws and the observation the reference functions read, without a map per
// evaluation.
type activation struct {
	object, aws ref.Val
	view        viewVal
}

func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case ObjectVar:
		return a.object, true
	case AWSVar:
		return a.aws, true
	case viewVar:
		return a.view, true
	}
	return nil, false
}

func (a *activation) Parent() interpreter.Activation { return nil }

// evalBool evaluates a bool expression: a runtime error (a missing field, a cost over CostLimit) is an error,
// which callers count as the condition not holding.
func (x *expr) evalBool(act *activation) (bool, error) {
	out, _, err := x.prog.Eval(act)
	if err != nil {
		return false, err
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, fmt.Errorf("gave %s, not a bool", out.Type())
	}
	return bool(b), nil
}

// evalString evaluates a string expression.
func (x *expr) evalString(act *activation) (string, error) {
	out, _, err := x.prog.Eval(act)
	if err != nil {
		return "", err
	}
	s, ok := out.(types.String)
	if !ok {
		return "", fmt.Errorf("gave %s, not a string", out.Type())
	}
	return string(s), nil
}

// explain gives the values of the fields the expression reads, e.g. `aws.healthCheck.path = "/a"`.
func (x *expr) explain(act *activation) string {
	var out []string
	for _, p := range x.parts {
		root, _, _ := strings.Cut(p.text, ".")
		if v, _ := act.ResolveName(root); v == types.NullValue {
			// Fields of a null aws say nothing more than that it is null.
			if s := root + " = null"; !slices.Contains(out, s) {
				out = append(out, s)
			}
			continue
		}
		v, _, err := p.prog.Eval(act)
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", p.text, err))
			continue
		}
		out = append(out, p.text+" = "+formatVal(v))
	}
	return strings.Join(out, ", ")
}

// maxValueLen bounds one value in a message.
const maxValueLen = 120

func formatVal(v ref.Val) string {
	var s string
	switch v := v.(type) {
	case types.String:
		s = fmt.Sprintf("%q", string(v))
	case types.Null:
		s = "null"
	default:
		b, err := json.Marshal(v.Value())
		if err != nil {
			s = fmt.Sprint(v.Value())
		} else {
			s = string(b)
		}
	}
	if len(s) > maxValueLen {
		s = s[:maxValueLen] + "…"
	}
	return s
}

// fieldChains are the longest field selections rooted at object or aws that e reads (plain `aws` when it only
// compares aws to null), in source order, at most maxParts.
func fieldChains(e ast.Expr) []string {
	var chains []string
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		if c, ok := chain(e); ok && !slices.Contains(chains, c) {
			chains = append(chains, c)
		}
	}))
	var out []string
	for _, c := range chains {
		longer := slices.ContainsFunc(chains, func(o string) bool { return strings.HasPrefix(o, c+".") })
		if !longer && len(out) < maxParts {
			out = append(out, c)
		}
	}
	return out
}

// chain is the text of a select chain rooted at object or aws.
func chain(e ast.Expr) (string, bool) {
	switch e.Kind() {
	case ast.IdentKind:
		name := e.AsIdent()
		return name, name == ObjectVar || name == AWSVar
	case ast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() {
			return "", false
		}
		op, ok := chain(s.Operand())
		return op + "." + s.FieldName(), ok
	}
	return "", false
}
