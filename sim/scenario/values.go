package scenario

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// Duration is a time.Duration written as a Go duration string ("1m30s"); a bare 0 is allowed.
type Duration struct{ time.Duration }

// D wraps d.
func D(d time.Duration) *Duration { return &Duration{d} }

// DurationPattern is the syntax of a duration: Go's, less what Go takes but a user would not
// write (a sign of +, a dot with no digit after it, as in 5.s). A minus sign is read, for the
// validation of the field's range to refuse with its reason.
const DurationPattern = `^-?([0-9]*\.?[0-9]+(ns|us|µs|ms|s|m|h))+$`

var durationSyntax = regexp.MustCompile(DurationPattern)

// parseDuration reads a duration written as DurationPattern says.
func parseDuration(s string) (time.Duration, error) {
	if !durationSyntax.MatchString(s) {
		return 0, fmt.Errorf("not a duration: %q", s)
	}
	return time.ParseDuration(s)
}

func (d *Duration) decodeNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a duration such as 30s, got %s", kindName(n))
	}
	// A bare zero, however written (0, 0.0), is no time at all: JSON cannot tell 0.0 from 0.
	if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f == 0 && n.Tag != "!!str" {
		d.Duration = 0
		return nil
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("want a duration such as 30s or 1m30s, got %q", n.Value)
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes the duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// String formats the duration.
func (d Duration) String() string { return d.Duration.String() }

// At is when a step runs: an offset from the start of the measured phase, or random.
type At struct {
	Random bool
	Offset time.Duration
}

func (a *At) decodeNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a duration or \"random\", got %s", kindName(n))
	}
	if n.Value == "random" {
		a.Random = true
		return nil
	}
	var d Duration
	if err := d.decodeNode(n); err != nil {
		return fmt.Errorf("want a duration or \"random\", got %q", n.Value)
	}
	a.Offset = d.Duration
	return nil
}

// MarshalJSON writes "random" or the offset.
func (a At) MarshalJSON() ([]byte, error) {
	if a.Random {
		return json.Marshal("random")
	}
	return json.Marshal(a.Offset.String())
}

// Number is a threshold limit: a plain number, or a duration string read as seconds.
type Number struct {
	Value    float64
	Duration bool
}

func (x *Number) decodeNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a number or a duration, got %s", kindName(n))
	}
	if f, err := strconv.ParseFloat(n.Value, 64); err == nil && n.Tag != "!!str" {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("want a finite number, got %q", n.Value)
		}
		x.Value = f
		return nil
	}
	d, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("want a number or a duration such as 30s, got %q", n.Value)
	}
	x.Value, x.Duration = d.Seconds(), true
	return nil
}

// MarshalJSON writes the number.
func (x Number) MarshalJSON() ([]byte, error) { return json.Marshal(x.Value) }
