package objects

import (
	"reflect"
	"time"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

var timeType = reflect.TypeFor[time.Time]()

// structuralOf is the structural schema of t's JSON form, so that `aws` is typed as CRD fields are: an
// unknown field does not compile, and times are CEL timestamps.
func structuralOf(t reflect.Type) structuralschema.Structural {
	typed := func(typ string) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: typ}}
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := structuralOf(t.Elem())
		s.Nullable = true
		return s
	case reflect.String:
		return typed("string")
	case reflect.Bool:
		return typed("boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return typed("integer")
	case reflect.Float32, reflect.Float64:
		return typed("number")
	case reflect.Slice, reflect.Array:
		items := structuralOf(t.Elem())
		s := typed("array")
		s.Items = &items
		return s
	case reflect.Map:
		values := structuralOf(t.Elem())
		s := typed("object")
		s.AdditionalProperties = &structuralschema.StructuralOrBool{Structural: &values, Bool: true}
		return s
	case reflect.Struct:
		if t == timeType {
			s := typed("string")
			s.ValueValidation = &structuralschema.ValueValidation{Format: "date-time"}
			return s
		}
		s := typed("object")
		s.Properties = map[string]structuralschema.Structural{}
		addFields(t, s.Properties)
		return s
	}
	return structuralschema.Structural{} // not exposed (no type): interfaces, funcs
}

// addFields adds t's JSON fields to props.
func addFields(t reflect.Type, props map[string]structuralschema.Structural) {
	for _, f := range jsonFields(t) {
		ft := t.Field(f.index).Type
		if f.name == "" {
			addFields(ft, props)
			continue
		}
		props[f.name] = structuralOf(ft)
	}
}
