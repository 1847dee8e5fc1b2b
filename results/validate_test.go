package results

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// full returns results with every pointer set, every list and map holding one entry and every
// number zero: valid, and a place for each figure the file can hold.
func full(t *testing.T) *Results {
	t.Helper()
	r := &Results{SchemaVersion: SchemaVersion}
	fill(reflect.ValueOf(r).Elem())
	r.AB.Metrics[0].Metric = MetricTTFMR
	if err := r.Validate(); err != nil {
		t.Fatalf("filled results: %v", err)
	}
	return r
}

func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			return
		}
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e)
		v.SetMapIndex(reflect.ValueOf("k"), e)
	case reflect.String:
		v.SetString("x")
	}
}

// numbers calls f with the JSON path of every number in v and a function that replaces it.
func numbers(v reflect.Value, path string, f func(path string, kind reflect.Kind, set func(reflect.Value))) {
	join := func(name string) string {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	switch v.Kind() {
	case reflect.Pointer:
		numbers(v.Elem(), path, f)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			return
		}
		for i := range v.NumField() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			numbers(v.Field(i), join(name), f)
		}
	case reflect.Slice:
		for i := range v.Len() {
			numbers(v.Index(i), fmt.Sprintf("%s[%d]", path, i), f)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if isNumber(v.Type().Elem().Kind()) {
				f(fmt.Sprintf("%s[%q]", path, k.String()), v.Type().Elem().Kind(), func(bad reflect.Value) { v.SetMapIndex(k, bad.Convert(v.Type().Elem())) })
			}
		}
	default:
		if isNumber(v.Kind()) {
			f(path, v.Kind(), func(bad reflect.Value) { v.Set(bad.Convert(v.Type())) })
		}
	}
}

func isNumber(k reflect.Kind) bool {
	return k == reflect.Int || k == reflect.Int64 || k == reflect.Float64
}

// Every number a results.json holds is checked, and a bad one is named by its JSON path: a
// huge or non-finite float, a negative count. A field added to the schema without a check fails
// here.
func TestValidateChecksEveryNumber(t *testing.T) {
	unchecked := map[string]bool{"scenario.seed": true} // any int64 seeds a run
	var paths []string
	numbers(reflect.ValueOf(full(t)), "", func(path string, _ reflect.Kind, _ func(reflect.Value)) { paths = append(paths, path) })
	if len(paths) < 100 {
		t.Fatalf("only %d numbers found", len(paths))
	}
	for i, path := range paths {
		if unchecked[path] {
			continue
		}
		for _, bad := range []float64{1e300, math.NaN(), -1} {
			r := full(t)
			kind := reflect.Invalid
			j := 0
			numbers(reflect.ValueOf(r), "", func(p string, k reflect.Kind, set func(reflect.Value)) {
				if j == i {
					kind = k
					if k == reflect.Float64 || bad == -1 {
						set(reflect.ValueOf(bad))
					}
				}
				j++
			})
			if kind != reflect.Float64 && bad != -1 {
				continue // an integer is never huge or NaN once decoded
			}
			if bad == -1 && (strings.HasSuffix(path, ".latencySeconds") || signedMemoryField(path)) {
				continue // a difference of two times; a warm-up reading, or the harness's process
			}
			err := r.Validate()
			if err == nil || !strings.Contains(err.Error(), path+": ") {
				t.Errorf("%s = %g: error %v, want one naming %s", path, bad, err, path)
			}
		}
	}
}

// signedMemoryField tells a memory figure that may be -1: a reading's time in the warm-up, before
// the measured phase began, or the harness's process as an instance.
func signedMemoryField(path string) bool {
	if !strings.Contains(path, ".memory.") {
		return false
	}
	for _, suffix := range []string{".instance", ".firstSeconds", ".lastSeconds", ".peakRSSSeconds", ".peakHeapInuseSeconds"} {
		if strings.HasSuffix(path, suffix) && !strings.Contains(path, ".restart.") {
			return true
		}
	}
	return strings.HasSuffix(path, ".restart.instance")
}

func TestValidateLimitsLists(t *testing.T) {
	for _, tt := range []struct {
		mutate func(r *Results)
		want   string
	}{
		{func(r *Results) { r.Strategies = make([]Strategy, MaxStrategies+1) }, "strategies: 101 strategies, more than 100"},
		{func(r *Results) { r.Strategies = nil }, "strategies: empty"},
		{func(r *Results) { r.Strategies[0].Runs = make([]Summary, MaxRuns+1) }, "strategies[0].runs: 1001 entries"},
		{func(r *Results) { r.Strategies[0].Name = strings.Repeat("n", MaxNameBytes+1) }, "strategies[0].name: 257 bytes"},
		{func(r *Results) { r.Strategies[0].Events[0].Detail = strings.Repeat("d", 2000) }, "strategies[0].events[0].detail: 2000 bytes"},
		{func(r *Results) { r.AB.Metrics = append(r.AB.Metrics, r.AB.Metrics[0]) }, "ab.metrics[1].metric: ttfmr_seconds is compared twice"},
		{func(r *Results) { r.AB.Metrics[0].Metric = "speed" }, `ab.metrics[0].metric: unknown metric "speed"`},
		{func(r *Results) { r.Sweep = make([]SweepPoint, 1001) }, "sweep: 1001 entries"},
	} {
		r := full(t)
		tt.mutate(r)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want %q", err, tt.want)
		}
	}
}

// Decode names the file and the field, and lists at most ten problems.
func TestDecodeRefusesOutOfRangeFigures(t *testing.T) {
	_, err := Decode([]byte(`{"schemaVersion":"`+SchemaVersion+`","strategies":[{"name":"a","summary":{"ttfmrSeconds":1e300,"blindTime":{"p95":-100}}}]}`), "run/results.json")
	for _, want := range []string{"run/results.json: corrupted: ", "strategies[0].summary.ttfmrSeconds: 1e+300 s is more than 30 days", "strategies[0].summary.blindTime.p95: -100 is negative"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	r := full(t)
	for i := range r.Strategies[0].Changes {
		r.Strategies[0].Changes[i].AtSeconds = -1
	}
	r.Strategies[0].Changes = append(r.Strategies[0].Changes, make([]Change, 20)...)
	for i := range r.Strategies[0].Changes {
		r.Strategies[0].Changes[i].AtSeconds = -1
	}
	if err := r.Validate(); err == nil || !strings.HasSuffix(err.Error(), "; and 11 more") {
		t.Errorf("error %v, want ten problems and a count of the rest", err)
	}
}

// A file larger than MaxFileBytes is refused before it is read (a sparse file costs no disk), and a device
// that never ends is refused for being a device.
func TestLoadRefusesTooLargeFile(t *testing.T) {
	big := filepath.Join(t.TempDir(), "results.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := Load(big); err == nil || err.Error() != big+": too large: more than 64 MiB" {
		t.Errorf("error %v, want too large", err)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if _, err := Load("/dev/zero"); err == nil || err.Error() != "/dev/zero is a device, not a regular file" {
		t.Errorf("error %v, want the device refused", err)
	}
}

func TestReadCSVRefusesOutOfRangeRows(t *testing.T) {
	const head = "strategy,second,series,value\n"
	for _, tt := range []struct{ rows, want string }{
		{"a,1000000000,s,1\n", "line 2: second: 1000000000 is outside [0, 2592000]"},
		{"a,-1,s,1\n", "line 2: second: -1 is outside"},
		{"a,9223372036854775808,s,1\n", "line 2: second: strconv.Atoi"},
		{"a,0,s,1\na,1,s,NaN\n", "line 3: value: NaN is outside [0, 1e+12]"},
		{"a,1,s,+Inf\n", "line 2: value: +Inf is outside"},
		{"a,1,s,-1\n", "line 2: value: -1 is outside"},
		{"a,1,s,1e300\n", "line 2: value: 1e+300 is outside"},
		{strings.Repeat("n", MaxNameBytes+1) + ",1,s,1\n", "line 2: strategy: 257 bytes"},
		{"a,1,s\n", "record on line 2: wrong number of fields"},
	} {
		_, err := ReadCSV(strings.NewReader(head + tt.rows))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.rows, err, tt.want)
		}
	}
	big := io.MultiReader(strings.NewReader(head+"a,1,"), &endless{b: 's'})
	if _, err := ReadCSV(big); err == nil || err.Error() != "too large: more than 64 MiB" {
		t.Errorf("endless series name: error %v, want too large", err)
	}
}

// endless reads as an endless run of one byte.
type endless struct{ b byte }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = e.b
	}
	return len(p), nil
}

// Every strategy has a name of its own and the results name their scenario: a report keyed by
// name would otherwise hide a strategy, or title itself with nothing.
func TestValidateRequiresNames(t *testing.T) {
	two := func(r *Results) {
		r.Strategies = append(r.Strategies, r.Strategies[0], r.Strategies[0])
		r.Strategies[1].Name, r.Strategies[2].Name = "y", "z"
	}
	for _, tt := range []struct {
		name   string
		mutate func(r *Results)
		want   string
	}{
		{"repeated name", func(r *Results) { two(r); r.Strategies[2].Name = "y" }, `strategies[2].name: "y" repeats strategies[1]`},
		{"empty name", func(r *Results) { two(r); r.Strategies[1].Name = "" }, "strategies[1].name: missing"},
		{"blank name", func(r *Results) { r.Strategies[0].Name = " \t" }, "strategies[0].name: missing"},
		{"no scenario", func(r *Results) { r.Scenario = Scenario{} }, "scenario.name: missing"},
		{"long scenario name", func(r *Results) { r.Scenario.Name = strings.Repeat("s", MaxNameBytes+1) }, "scenario.name: 257 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := full(t)
			tt.mutate(r)
			err := r.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	r := full(t)
	two(r)
	if err := r.Validate(); err != nil {
		t.Errorf("distinct names: %v", err)
	}
}
