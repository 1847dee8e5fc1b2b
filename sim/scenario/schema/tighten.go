package schema

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/restartsim/restartsim/sim/scenario"
)

// tighten makes the reflected schema judge as the decoder and validate do where the Go types
// alone do not say it: the constant apiVersion and kind, the closed sets of actions and waits,
// integers within int64, and null where the decoder reads it as unset (pointers, structs, lists
// and maps).
func tighten(s *jsonschema.Schema, names func(reflect.Type) string) {
	root := s.Definitions[names(reflect.TypeOf(scenario.Scenario{}))]
	setProp(root, "apiVersion", func(p *jsonschema.Schema) { p.Const = scenario.APIVersion })
	setProp(root, "kind", func(p *jsonschema.Schema) { p.Const = scenario.Kind })
	step := s.Definitions[names(reflect.TypeOf(scenario.Step{}))]
	setProp(step, "action", func(p *jsonschema.Schema) { p.Enum = anySlice(scenario.Actions) })
	setProp(step, "waitFor", func(p *jsonschema.Schema) {
		p.Enum = anySlice([]string{scenario.WaitForLeader, scenario.WaitForSteadyState})
	})
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || scalars[t] != nil {
			return
		}
		seen[t] = true
		def := s.Definitions[names(t)]
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || name == "" {
				continue
			}
			walk(f.Type)
			if def == nil || def.Properties == nil {
				continue
			}
			p, ok := def.Properties.Get(name)
			if !ok {
				continue
			}
			if p.Type == "integer" && p.Maximum == "" {
				p.Minimum, p.Maximum = json.Number(strconv.FormatInt(math.MinInt64, 10)), json.Number(strconv.FormatInt(math.MaxInt64, 10))
			}
			switch f.Type.Kind() {
			case reflect.Pointer, reflect.Struct, reflect.Slice, reflect.Map:
				if f.Type != reflect.TypeOf(json.RawMessage(nil)) {
					def.Properties.Set(name, &jsonschema.Schema{AnyOf: []*jsonschema.Schema{p, {Type: "null"}}, Description: p.Description})
				}
			}
		}
	}
	walk(reflect.TypeOf(scenario.Scenario{}))
}

func setProp(def *jsonschema.Schema, name string, set func(*jsonschema.Schema)) {
	if def == nil || def.Properties == nil {
		return
	}
	if p, ok := def.Properties.Get(name); ok {
		set(p)
	}
}

func anySlice(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
