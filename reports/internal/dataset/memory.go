package dataset

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/restartsim/restartsim/results"
)

// MemoryLine is one instance's resident size or Go heap over time, in MiB.
type MemoryLine struct {
	Line
	// Instance indexes the instance among its panel's (one colour each); Heap tells the heap line
	// from the resident one.
	Instance int
	Heap     bool
}

// MemoryPanel is one strategy's controller memory.
type MemoryPanel struct {
	Strategy string
	// Shared tells the lines are the harness's process, which in-process replicas share.
	Shared  bool
	Lines   []MemoryLine
	Markers []Marker
	// MoreMarkers counts the events left out of Markers (MaxMarkers).
	MoreMarkers int
}

// Memory is the memory figure: one panel per strategy with memory readings.
type Memory struct {
	BinSeconds int
	Panels     []MemoryPanel
}

// NewMemory prepares the memory figure from the memory series of timeseries.csv: per instance
// its largest reading per bin, resident and heap, with every restart's stop, Lease and cache sync
// marked.
func NewMemory(r *results.Results, t *Timeline) Memory {
	out := Memory{BinSeconds: t.BinSeconds}
	for i := range r.Strategies {
		s := &r.Strategies[i]
		panel := MemoryPanel{Strategy: s.Name, Shared: s.Summary.Memory != nil && s.Summary.Memory.Process == results.MemoryProcessHarness}
		instances := map[string]int{}
		for _, name := range t.SeriesNames(s.Name) {
			heap := strings.HasPrefix(name, results.SeriesMemoryHeap+":")
			inst, ok := strings.CutPrefix(name, results.SeriesMemoryRSS+":")
			if heap {
				inst = strings.TrimPrefix(name, results.SeriesMemoryHeap+":")
			} else if !ok {
				continue
			}
			if _, seen := instances[inst]; !seen {
				instances[inst] = len(instances)
			}
			what := "resident"
			if heap {
				what = "Go heap in use"
			}
			pts := t.Peaks(s.Name, name)
			if len(pts) == 0 {
				continue // an instance that ran only before the measured phase
			}
			for j := range pts {
				pts[j].Y /= 1 << 20
			}
			panel.Lines = append(panel.Lines, MemoryLine{Line: Line{Name: instanceLabel(s, inst) + ", " + what, Points: pts},
				Instance: instances[inst], Heap: heap})
		}
		if len(panel.Lines) == 0 {
			continue
		}
		ms, more := Markers(s)
		panel.Markers, panel.MoreMarkers = append(ms, phaseMarkers(s)...), more
		out.Panels = append(out.Panels, panel)
	}
	return out
}

// instanceLabel names an instance of a memory series by its role.
func instanceLabel(s *results.Strategy, inst string) string {
	id, err := strconv.Atoi(inst)
	if err != nil {
		return inst
	}
	if id == results.HarnessInstance {
		return "harness process"
	}
	if m := s.Summary.Memory; m != nil {
		for _, im := range m.Instances {
			if im.Instance == id {
				return fmt.Sprintf("replica %d (%s)", id, im.Role)
			}
		}
	}
	return fmt.Sprintf("replica %d", id)
}

// phaseMarkers marks, for every restart, when the instance that took over got the Lease and when
// its caches synced.
func phaseMarkers(s *results.Strategy) []Marker {
	var out []Marker
	for _, ph := range s.Restarts {
		if ph.LeaderElection && ph.LeadingSeconds != nil {
			out = append(out, Marker{Kind: MarkerPhase, Label: "Lease", At: *ph.LeadingSeconds, End: *ph.LeadingSeconds})
		}
		if ph.CachesSyncedSeconds != nil {
			out = append(out, Marker{Kind: MarkerPhase, Label: "caches synced", At: *ph.CachesSyncedSeconds, End: *ph.CachesSyncedSeconds})
		}
	}
	return out
}

// Peaks is a gauge's largest value per bin, only in bins that have samples: an instance that
// stopped, or did not answer, has no value there (unlike Gauge, which holds the last one).
func (t *Timeline) Peaks(strategy, series string) Points {
	var pts Points
	for _, s := range t.series[strategy][series] { // in time order
		x := t.x(t.bin(s.second))
		if n := len(pts); n > 0 && pts[n-1].X == x {
			pts[n-1].Y = math.Max(pts[n-1].Y, s.value)
			continue
		}
		pts = append(pts, Point{X: x, Y: s.value})
	}
	return pts
}

// Runs splits points into runs of consecutive bins (binSeconds apart), so that a chart leaves a
// gap where an instance was not read instead of drawing a line across it.
func Runs(pts Points, binSeconds int) []Points {
	var out []Points
	start := 0
	for i := 1; i <= len(pts); i++ {
		if i == len(pts) || pts[i].X-pts[i-1].X > float64(binSeconds)+0.5 {
			out = append(out, pts[start:i])
			start = i
		}
	}
	return out
}
