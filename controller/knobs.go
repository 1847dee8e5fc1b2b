package controller

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// Knob is one strategy setting of the reference controller, declared once in Knobs for every place
// that carries it: a field of Options (and its default), a flag of `restartsim controller` (and the
// argv the harness writes to run a strategy out of process), and a field of a scenario strategy
// with its doc comment and checks.
type Knob struct {
	// Field is the scenario strategy's field (controller.strategies[].<Field>); its Go name is
	// Field with an upper-case first letter.
	Field string
	// Flag is the flag of `restartsim controller`; Usage its help.
	Flag, Usage string
	// Doc is the scenario field's doc comment (the scenario reference and schema show it). Empty
	// when the comment of the knob before it covers this one too.
	Doc string
	// Values are the valid values of an enumerated string, in the order messages list them.
	Values []string
	// Min and Max bound an integer a scenario sets.
	Min, Max int
	// Off: the scenario's 0 turns the feature off, which Options spells as a negative duration.
	Off bool
	// LeaderElection: a setting of the Lease-based leader election, checked with the others and
	// only meaningful with it.
	LeaderElection bool
	// Negated: the scenario field is the negation of the flag and the Options field.
	Negated bool
	// Always: the out-of-process command passes the flag even at its default (every build of the
	// controller verb has it); other knobs are passed only when set, so that an older build runs
	// a strategy that does not use them.
	Always bool
	// When, if set, limits the flag of the out-of-process command to options where it holds.
	When func(Options) bool
	// FlagDefault, if set, is the flag's default where it differs from the Options default.
	FlagDefault any

	opt option
}

// Kind is the Go type of a knob's value.
type Kind int

// Kinds of knob.
const (
	KindBool Kind = iota
	KindDuration
	KindInt
	KindString
)

// GoName is the knob's field name in the scenario's Go types.
func (k Knob) GoName() string { return strings.ToUpper(k.Field[:1]) + k.Field[1:] }

// Kind is the type of the knob's value.
func (k Knob) Kind() Kind { return k.opt.kind() }

// Default is the value Options defaults the knob to: a bool, time.Duration, int or string.
func (k Knob) Default() any { return k.opt.defaultValue() }

// Get is the knob's value in o.
func (k Knob) Get(o Options) any { return k.opt.get(&o) }

// Set sets the knob's field of o to v, which has the knob's Kind.
func (k Knob) Set(o *Options, v any) { k.opt.set(o, v) }

// AddFlag registers the knob's flag on fs, bound to o.
func (k Knob) AddFlag(fs *pflag.FlagSet, o *Options) {
	def := k.FlagDefault
	if def == nil {
		def = k.Default()
	}
	switch p := k.opt.ptr(o).(type) {
	case *bool:
		fs.BoolVar(p, k.Flag, def.(bool), k.Usage)
	case *time.Duration:
		fs.DurationVar(p, k.Flag, def.(time.Duration), k.Usage)
	case *int:
		fs.IntVar(p, k.Flag, def.(int), k.Usage)
	case *string:
		fs.StringVar(p, k.Flag, def.(string), k.Usage)
	}
}

// Arg is the command-line argument that gives a controller the knob's value of o, and whether the
// command passes it (see Always and When). A negative duration, "off", is written as -1ns.
func (k Knob) Arg(o Options) (string, bool) {
	v := k.Get(o)
	if k.When != nil && !k.When(o) {
		return "", false
	}
	if !k.Always && isZero(v) {
		return "", false
	}
	switch v := v.(type) {
	case bool:
		if !k.Always {
			return "--" + k.Flag, true
		}
		return "--" + k.Flag + "=" + strconv.FormatBool(v), true
	case time.Duration:
		if v < 0 {
			return "--" + k.Flag + "=-1ns", true
		}
		return "--" + k.Flag + "=" + v.String(), true
	default:
		return fmt.Sprintf("--%s=%v", k.Flag, v), true
	}
}

// applyDefault sets the knob's field of o to its default when unset: zero, or negative where a
// negative value means nothing (a negative Off duration is "off").
func (k Knob) applyDefault(o *Options) {
	v := k.Get(*o)
	if def := k.Default(); !isZero(def) && (isZero(v) || (!k.Off && isNegative(v))) {
		k.Set(o, def)
	}
}

func isZero(v any) bool {
	switch v := v.(type) {
	case bool:
		return !v
	case time.Duration:
		return v == 0
	case int:
		return v == 0
	case string:
		return v == ""
	}
	return false
}

func isNegative(v any) bool {
	switch v := v.(type) {
	case time.Duration:
		return v < 0
	case int:
		return v < 0
	}
	return false
}

// option is a knob's field of Options: its address, type and default.
type option interface {
	ptr(o *Options) any
	get(o *Options) any
	set(o *Options, v any)
	kind() Kind
	defaultValue() any
}

type knobValue interface {
	bool | time.Duration | int | string
}

type field[T knobValue] struct {
	at  func(o *Options) *T
	def T
}

// of is the Options field at returns, with its default.
func of[T knobValue](at func(o *Options) *T, def T) option { return field[T]{at: at, def: def} }

func (f field[T]) ptr(o *Options) any    { return f.at(o) }
func (f field[T]) get(o *Options) any    { return *f.at(o) }
func (f field[T]) set(o *Options, v any) { *f.at(o) = v.(T) }
func (f field[T]) defaultValue() any     { return f.def }
func (f field[T]) kind() Kind {
	switch any(f.def).(type) {
	case bool:
		return KindBool
	case time.Duration:
		return KindDuration
	case int:
		return KindInt
	}
	return KindString
}

// KnobByField returns the knob of scenario field name.
func KnobByField(name string) (Knob, bool) {
	for _, k := range Knobs {
		if k.Field == name {
			return k, true
		}
	}
	return Knob{}, false
}
