package objects

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/sim/fielderr"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
)

// checkSchema checks a rendered object of a CRD kind as the API server would take it: a field the schema does
// not know (which the server drops without an error, so a misspelt field would go unnoticed) and a value of the
// wrong type or out of bounds (e.g. "{{.Index}}" where the schema wants an integer) are problems at the
// template's field path base. Built-in kinds are left to the API server.
func (k *Kind) checkSchema(obj map[string]any, base string, errs *fielderr.List) {
	if k.schema == nil {
		return
	}
	add := func(path, msg string) {
		if !slices.ContainsFunc(*errs, func(x *fielderr.Error) bool { return x.Path == path }) {
			errs.Addf(path, "%s", msg)
		}
	}
	opts := structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}
	for _, p := range pruning.PruneWithOptions(runtime.DeepCopyJSON(obj), k.schema, true, opts) {
		add(base+"."+p, fmt.Sprintf("unknown field: the schema of %s has no such field (the API server would drop it)", k.GVK.Kind))
	}
	for _, e := range validation.ValidateCustomResource(nil, obj, k.validator) {
		path := base
		if e.Field != "" && e.Field != "<nil>" {
			path += "." + e.Field
		}
		add(path, strings.TrimSpace(e.ErrorBody()))
	}
}

// mergePatch applies a JSON merge patch (RFC 7386) to a copy of obj.
func mergePatch(obj, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return runtime.DeepCopyJSONValue(patch)
	}
	o, ok := obj.(map[string]any)
	if !ok {
		o = map[string]any{}
	}
	out := runtime.DeepCopyJSON(o)
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}
