package objects

import (
	"reflect"
	"strings"
	"sync"
	"time"
)

// jsonField is a struct field as encoding/json sees it.
type jsonField struct {
	index     int
	name      string // "" for an embedded struct whose fields are inlined
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type → []jsonField

// jsonFields are t's fields by their json tags: "-" and unexported fields left out, an embedded struct without
// a JSON name inlined, as encoding/json does.
func jsonFields(t reflect.Type) []jsonField {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]jsonField)
	}
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported() && !f.Anonymous:
			continue
		case name == "" && f.Anonymous && f.Type.Kind() == reflect.Struct:
			out = append(out, jsonField{index: i})
			continue
		case name == "":
			name = f.Name
		}
		out = append(out, jsonField{index: i, name: name, omitEmpty: strings.Contains(","+opts+",", ",omitempty,")})
	}
	fieldCache.Store(t, out)
	return out
}

// jsonValue is v as encoding/json would write it, decoded into map[string]any, []any, string, int64, float64,
// bool and nil (times as RFC 3339 strings), without encoding: runtime's converter marshals and parses every
// time.Time, which was most of a snapshot's cost.
func jsonValue(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return jsonValue(v.Elem())
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return int64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = jsonValue(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := make(map[string]any, v.Len())
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = jsonValue(it.Value())
		}
		return out
	case reflect.Struct:
		if v.Type() == timeType {
			return v.Interface().(time.Time).Format(time.RFC3339Nano)
		}
		out := map[string]any{}
		addJSONFields(v, out)
		return out
	}
	return nil
}

func addJSONFields(v reflect.Value, out map[string]any) {
	for _, f := range jsonFields(v.Type()) {
		fv := v.Field(f.index)
		switch {
		case f.name == "":
			addJSONFields(fv, out)
		case f.omitEmpty && isEmpty(fv):
		default:
			out[f.name] = jsonValue(fv)
		}
	}
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	case reflect.Struct:
		return false
	}
	return v.IsZero()
}
