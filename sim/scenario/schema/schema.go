package schema

import (
	"encoding/json"
	"reflect"

	"github.com/invopop/jsonschema"

	"github.com/restartsim/restartsim/sim/scenario"
)

// ID is the schema's $id.
const ID = "https://github.com/restartsim/restartsim/docs/scenario.schema.json"

// durationPattern matches a duration such as 30s, 1m30s or 250ms, as the decoder reads it
// (scenario.DurationPattern), but for the minus sign the decoder reads only to refuse it later.
const durationPattern = `^([0-9]*\.?[0-9]+(ns|us|µs|ms|s|m|h))+$`

// duration is a Duration: a Go duration string, or a bare 0.
func duration() *jsonschema.Schema {
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		{Type: "string", Pattern: durationPattern},
		{Type: "number", Const: 0},
	}, Description: "a duration such as 30s or 1m30s"}
}

// scalars are the scenario's types with a syntax of their own (the ones its decoder reads with a
// decodeNode method), described by hand; every other type is reflected from its fields.
var scalars = map[reflect.Type]func() *jsonschema.Schema{
	reflect.TypeOf(scenario.Duration{}): duration,
	reflect.TypeOf(scenario.At{}): func() *jsonschema.Schema {
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{duration(), {Type: "string", Const: "random"}},
			Description: "an offset such as 30s, or random"}
	},
	reflect.TypeOf(scenario.Number{}): func() *jsonschema.Schema {
		return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "number"}, {Type: "string", Pattern: durationPattern}},
			Description: "a number, or a duration read as seconds"}
	},
	// Object templates and merge patches: any JSON value, whose strings may be templates.
	reflect.TypeOf(json.RawMessage(nil)): func() *jsonschema.Schema { return &jsonschema.Schema{} },
}

// Reflect builds the schema of scenario.Scenario. Fields are optional (the defaults fill them)
// and unknown ones are refused, as the strict decoder does.
func Reflect() *jsonschema.Schema {
	r := &jsonschema.Reflector{
		RequiredFromJSONSchemaTags: true,
		CommentMap:                 comments,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if f, ok := scalars[t]; ok {
				return f()
			}
			return nil
		},
		// The objects package's types keep the names they have always had in the schema
		// (ObjectGroup, ObjectAWSRef), which says what they are among the scenario's.
		Namer: func(t reflect.Type) string {
			if t.PkgPath() == Module+"/"+ObjectsDir {
				return "Object" + t.Name()
			}
			return ""
		},
	}
	s := r.Reflect(&scenario.Scenario{})
	tighten(s, func(t reflect.Type) string {
		if n := r.Namer(t); n != "" {
			return n
		}
		return t.Name()
	})
	s.ID = ID
	s.Title = "restartsim scenario"
	return s
}

// Generate is the schema as written to docs/scenario.schema.json: indented JSON and a newline.
func Generate() ([]byte, error) {
	out, err := json.MarshalIndent(Reflect(), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
