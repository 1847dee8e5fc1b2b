package scenario

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// BenchmarkParse parses (strict decode, defaults, validation) every scenario under scenarios/.
// x-yaml is the cost relative to a plain yaml.v3 decode of the same bytes into a generic map,
// measured in the same run: the overhead of strict decoding with positions, defaults and validation.
func BenchmarkParse(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("..", "..", "scenarios", "*.yaml"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no scenarios found: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			base := nsPerOp(func() {
				var m map[string]any
				if err := yaml.Unmarshal(data, &m); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Parse(f, data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-yaml")
		})
	}
}

// nsPerOp times f over at least 50 ms of calls (testing.Benchmark cannot nest inside a benchmark).
func nsPerOp(f func()) float64 {
	n := 0
	start := time.Now()
	for time.Since(start) < 50*time.Millisecond {
		f()
		n++
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}
