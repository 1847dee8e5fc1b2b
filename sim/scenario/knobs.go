package scenario

import "reflect"

// knob is one of the reference controller's strategy knobs as the validator checks it; knobs_gen.go
// lists them, generated from controller.Knobs with the Strategy fields they are.
type knob struct {
	// field is the Strategy field's JSON name.
	field string
	// values are the valid values of an enumerated string.
	values []string
	// min and max bound an integer.
	min, max int
	// duration: a *Duration field.
	duration bool
	// leaderElection: a leader-election setting, checked by validateLeaderElection.
	leaderElection bool
}

// strategyFields are the indexes of Strategy's fields, by JSON name.
var strategyFields = fieldsOf(reflect.TypeOf(Strategy{}))

// validateKnobs checks each knob field of the reference strategy st at path p on its own: an
// enumerated value, an integer's bounds, a duration's range. The rules between fields follow in
// validateStrategy.
func (v *validator) validateKnobs(st Strategy, p string) {
	fields := reflect.ValueOf(st)
	for _, k := range knobs {
		path, val := p+"."+k.field, fields.Field(strategyFields[k.field]).Interface()
		switch {
		case k.values != nil:
			if s := val.(string); s != "" { // unset is the default, and stays out of the recorded config
				v.oneOf(path, s, k.values)
			}
		case k.max > 0:
			v.count(path, val.(int), k.min, k.max)
		case k.duration && !k.leaderElection:
			v.duration(path, val.(*Duration))
		}
	}
}
