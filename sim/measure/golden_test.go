package measure

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/runs/*.output.json from the current measurements")

// TestRecordedRuns applies every measurement to what real runs recorded (testdata/runs: small
// envtest runs of the reference controller, one per kind of scenario the integration tests
// cover) and compares the whole Output with the one recorded beside it. Every figure of
// results.json comes from here, so a restructuring of the measurements must leave the file
// byte for byte the same. The recorded machine carries its figures but not the judgement of
// saturation, which the measurement makes. A deliberate change of a figure rewrites the outputs
// with -update, and their diff shows every figure it changed.
func TestRecordedRuns(t *testing.T) {
	inputs, err := filepath.Glob("testdata/runs/*.input.json.gz")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no recorded runs: %v", err)
	}
	for _, path := range inputs {
		name := strings.TrimSuffix(filepath.Base(path), ".input.json.gz")
		t.Run(name, func(t *testing.T) {
			in := readRecordedInput(t, path)
			if in.Machine == nil || in.Machine.Saturated || in.Machine.Reason != "" {
				t.Fatalf("recorded machine %+v: want its figures, not yet judged", in.Machine)
			}
			got, err := json.MarshalIndent(Run(in), "", " ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			wantPath := filepath.Join("testdata/runs", name+".output.json")
			if *update {
				if err := os.WriteFile(wantPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(wantPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from testdata/runs/%s.output.json:\n%s", name, firstDifference(got, want))
			}
		})
	}
}

func readRecordedInput(t *testing.T, path string) *Input {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var in Input
	if err := json.NewDecoder(z).Decode(&in); err != nil {
		t.Fatal(err)
	}
	return &in
}

// firstDifference shows the first line where got and want differ, with its line number.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ": got " + strconv.Quote(gl) + ", want " + strconv.Quote(wl)
		}
	}
	return "same lines, different bytes"
}
