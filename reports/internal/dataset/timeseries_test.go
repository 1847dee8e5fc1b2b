package dataset

import (
	"reflect"
	"testing"

	"github.com/restartsim/restartsim/reports/results"
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
	got := Markers(a, b)
	want := []Marker{
		{Kind: MarkerRestart, Label: "restart: crash", At: 60, End: 60},
		{Kind: MarkerFault, Label: "awsFault: EC2 RequestLimitExceeded", At: 90, End: 120},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("markers = %+v, want %+v", got, want)
	}
}
