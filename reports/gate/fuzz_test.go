package gate

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// FuzzEvaluate: whatever a results.json holds, the gate judges it or says why it cannot; it never
// panics. The seeds are the golden results and an A/B comparison.
func FuzzEvaluate(f *testing.F) {
	if data, err := os.ReadFile("../testdata/results.json"); err == nil {
		f.Add(data)
	}
	ab, err := json.Marshal(abResults(seq(1, 0.1, 8), []float64{2, 2.1, math.MaxFloat64, 0, 3, 2.2, 2.3, 2.4}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ab)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := results.Decode(data, "fuzz.json")
		if err != nil {
			return
		}
		rep, err := Evaluate(r, r)
		if err == nil || IsViolation(err) {
			for _, c := range rep.AB {
				if !c.Skipped && (math.IsNaN(c.P) || c.P < 0 || c.P > 1 || c.Verdict == "") {
					t.Fatalf("%s: p %g outside [0, 1] or no verdict", c.Name(), c.P)
				}
			}
		}
	})
}
