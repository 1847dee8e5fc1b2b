package dataset

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

func TestTimeline(t *testing.T) {
	s := func(sec int, series string, v float64) results.Sample {
		return results.Sample{Strategy: "a", Second: sec, Series: series, Value: v}
	}
	calls := results.SeriesAWSCalls + ":RegisterTargets"
	samples := []results.Sample{
		s(0, calls, 4), s(1, calls, 2), s(3, calls, 6), s(3, calls, 1), // duplicate rows add up
		s(0, results.SeriesQueueDepth, 5), s(2, results.SeriesQueueDepth, 1), // sparse gauge
		s(5, results.SeriesQueueDepth, 0),
	}
	tests := []struct {
		name    string
		maxBins int
		bin     int
		rate    Points
		gauge   Points
	}{
		{name: "one bin per second", maxBins: 0, bin: 1,
			rate:  Points{{0, 4}, {1, 2}, {2, 0}, {3, 7}, {4, 0}, {5, 0}},
			gauge: Points{{0, 5}, {1, 5}, {2, 1}, {3, 1}, {4, 1}, {5, 0}}},
		{name: "two-second bins", maxBins: 3, bin: 2,
			rate:  Points{{0.5, 3}, {2.5, 3.5}, {4.5, 0}},
			gauge: Points{{0.5, 5}, {2.5, 1}, {4.5, 1}}},
		{name: "bins wider than the span leave a partial last bin", maxBins: 2, bin: 3,
			rate:  Points{{1, 2}, {4, 7.0 / 3}},
			gauge: Points{{1, 5}, {4, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := NewTimeline(samples, tt.maxBins)
			if tl.BinSeconds != tt.bin {
				t.Fatalf("bin = %d, want %d", tl.BinSeconds, tt.bin)
			}
			if got := tl.Rate("a", calls); !reflect.DeepEqual(got, tt.rate) {
				t.Errorf("rate = %v, want %v", got, tt.rate)
			}
			if got := tl.Gauge("a", results.SeriesQueueDepth); !reflect.DeepEqual(got, tt.gauge) {
				t.Errorf("gauge = %v, want %v", got, tt.gauge)
			}
		})
	}
}

func TestMarkers(t *testing.T) {
	a := &results.Strategy{Events: []results.Event{
		{AtSeconds: 90, EndSeconds: 120, Kind: "awsFault", Detail: "EC2 RequestLimitExceeded"},
		{AtSeconds: 60, Kind: "restart", Detail: "crash"},
		{AtSeconds: 70, Kind: "churn"},
	}}
	b := &results.Strategy{Events: []results.Event{{AtSeconds: 60, Kind: "restart", Detail: "crash"}}}
	got, more := Markers(a, b)
	want := []Marker{
		{Kind: MarkerRestart, Label: "restart: crash", At: 60, End: 60},
		{Kind: MarkerFault, Label: "awsFault: EC2 RequestLimitExceeded", At: 90, End: 120},
	}
	if !reflect.DeepEqual(got, want) || more != 0 {
		t.Errorf("markers = %+v, %d more; want %+v", got, more, want)
	}
}

func TestMarkersAreCapped(t *testing.T) {
	s := &results.Strategy{}
	for i := range MaxMarkers + 5 {
		s.Events = append(s.Events, results.Event{AtSeconds: float64(MaxMarkers + 5 - i), Kind: "restart"})
	}
	got, more := Markers(s)
	if len(got) != MaxMarkers || more != 5 || got[0].At != 1 {
		t.Errorf("%d markers from %v, %d more; want the first %d, 5 more", len(got), got[0].At, more, MaxMarkers)
	}
}

// Samples a month apart cost as much as samples a second apart: the timeline's work follows the
// samples and the bins, not the seconds between them.
func TestTimelineFarApartSamples(t *testing.T) {
	calls := results.SeriesAWSCalls + ":RegisterTargets"
	far := results.MaxSeconds
	samples := []results.Sample{{Strategy: "a", Second: 0, Series: calls, Value: 3}, {Strategy: "a", Second: far, Series: calls, Value: 5},
		{Strategy: "a", Second: 0, Series: results.SeriesQueueDepth, Value: 2}}
	tl := NewTimeline(samples, MaxBins)
	rate := tl.Rate("a", calls)
	gauge := tl.Gauge("a", results.SeriesQueueDepth)
	if len(rate) != MaxBins || len(gauge) != MaxBins {
		t.Fatalf("%d and %d points, want %d bins", len(rate), len(gauge), MaxBins)
	}
	var total float64
	for _, p := range rate {
		total += p.Y * float64(tl.BinSeconds)
	}
	if total != 8 || gauge[MaxBins-1].Y != 2 {
		t.Errorf("rate total %g (want 8), last gauge %g (want 2, held)", total, gauge[MaxBins-1].Y)
	}
}

// Past MaxOperations, the quieter operations share one line; the total is kept.
func TestCallRatesCapOperations(t *testing.T) {
	var samples []results.Sample
	for i := range MaxOperations + 5 {
		samples = append(samples, results.Sample{Strategy: "a", Second: 0, Series: fmt.Sprintf("%s:Op%02d", results.SeriesAWSCalls, i), Value: float64(100 - i)})
	}
	r := &results.Results{Strategies: []results.Strategy{{Name: "a"}}}
	cr := NewCallRates(r, NewTimeline(samples, MaxBins))
	lines := cr.Panels[0].Calls
	if len(lines) != MaxOperations || lines[MaxOperations-1].Name != "6 other operations" {
		t.Fatalf("%d lines, last %q; want %d, the last for 6 other operations", len(lines), lines[len(lines)-1].Name, MaxOperations)
	}
	var total float64
	for _, l := range lines {
		total += l.Points[0].Y
	}
	if want := float64(MaxOperations+5) * (100 - float64(MaxOperations+4)/2); total != want {
		t.Errorf("total %g, want %g", total, want)
	}
}

// A CDF of many changes is drawn with at most MaxCDFPoints points, keeping its ends.
func TestLatencyCDFIsDecimated(t *testing.T) {
	s := results.Strategy{Name: "a"}
	n := 10 * MaxCDFPoints
	for i := range n {
		v := float64(i + 1)
		s.Changes = append(s.Changes, results.Change{LatencySeconds: &v})
	}
	pts := NewLatencyCDF(&results.Results{Strategies: []results.Strategy{s}}).Lines[0].Points
	last := pts[len(pts)-1]
	if len(pts) > MaxCDFPoints+1 || pts[0] != (Point{1, 0}) || last != (Point{float64(n), 1}) {
		t.Errorf("%d points from %v to %v; want at most %d from {1 0} to {%d 1}", len(pts), pts[0], last, MaxCDFPoints+1, n)
	}
}

// Every restart's phases are drawn on the controller lane, each restart's last phase lasting to
// the next one's stop, and neither restart is marked again as a plain marker.
func TestEventTimelineOfEveryRestart(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	first := results.RestartPhases{StoppedSeconds: 10, StartedSeconds: 11, CachesSyncedSeconds: f(12),
		FirstAWSCallSeconds: f(12.5), FirstMeaningfulSeconds: f(13)}
	second := results.RestartPhases{StoppedSeconds: 40, StartedSeconds: 40.5, LeaderElection: true, LeadingSeconds: f(55),
		CachesSyncedSeconds: f(55.2), FirstAWSCallSeconds: f(55.3), FirstMeaningfulSeconds: f(56)}
	s := results.Strategy{Name: "a", Restart: &first, Restarts: []results.RestartPhases{first, second},
		Events: []results.Event{{AtSeconds: 10, Kind: "restart"}, {AtSeconds: 40, Kind: "restart"}, {AtSeconds: 20, EndSeconds: 25, Kind: "awsFault"}}}
	tl := NewEventTimeline(&results.Results{Strategies: []results.Strategy{s}})
	if len(tl.Panels) != 1 {
		t.Fatalf("%d panels", len(tl.Panels))
	}
	p := tl.Panels[0]
	var got []string
	for _, sp := range p.Spans {
		got = append(got, fmt.Sprintf("%s %g-%g", sp.Phase, sp.From, sp.To))
	}
	want := []string{
		PhaseDown + " 10-11", PhaseStarting + " 11-12", PhaseSynced + " 12-13", PhaseRunning + " 13-40",
		PhaseDown + " 40-40.5", PhaseWaiting + " 40.5-55", PhaseLeading + " 55-55.2", PhaseSynced + " 55.2-56",
		fmt.Sprintf("%s 56-%g", PhaseRunning, tl.To),
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("spans\n got %s\nwant %s", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	if fmt.Sprint(p.FirstAWSCalls, p.FirstMeaningfuls) != "[12.5 55.3] [13 56]" {
		t.Errorf("instants %v %v", p.FirstAWSCalls, p.FirstMeaningfuls)
	}
	if len(p.Markers) != 1 || p.Markers[0].Kind != MarkerFault {
		t.Errorf("markers %+v, want the fault only", p.Markers)
	}
}
