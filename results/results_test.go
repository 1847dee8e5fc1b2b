package results

import (
	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	ttfmr := 1.5
	in := &Results{
		Scenario: Scenario{Name: "q", Seed: 42, TimeScale: 10, TGBs: 3},
		Strategies: []Strategy{{
			Name:    "checkpoint",
			Config:  map[string]string{"checkpoint": "annotation"},
			Summary: Summary{TTFMRSeconds: &ttfmr, AWSCalls: map[string]int{"RegisterTargets": 2}},
		}},
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := in.Save(path); err != nil {
		t.Fatal(err)
	}
	out, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip changed results:\n in=%+v\nout=%+v", in, out)
	}
	if _, err := Decode([]byte(`{"schemaVersion":"other"}`), "x.json"); err == nil || !strings.Contains(err.Error(), "x.json") {
		t.Fatalf("wrong schema version: err = %v, want one naming the file", err)
	}
}

func TestMetricsOmitEventsThatNeverHappened(t *testing.T) {
	s := Summary{AWSCallsBeforeFirstMeaningful: map[string]int{"DescribeTargetHealth": 3, "DescribeInstances": 1}}
	m := s.Metrics()
	if _, ok := m[MetricTTFMR]; ok {
		t.Error("TTFMR present although it never happened")
	}
	if got := m[MetricAWSCallsBeforeFirstMeaningful]; got != 4 {
		t.Errorf("calls before first meaningful = %v, want 4", got)
	}
	for name := range m {
		found := false
		for _, known := range MetricNames() {
			found = found || known == name
		}
		if !found {
			t.Errorf("metric %q missing from MetricNames", name)
		}
	}
}

func TestTimeseriesCSVRoundTripAndErrors(t *testing.T) {
	in := []Sample{{"a", 0, SeriesAWSCalls + ":RegisterTargets", 4}, {"b", 3, SeriesQueueDepth, 0.5}}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadCSV(&buf)
	if err != nil || !reflect.DeepEqual(in, out) {
		t.Fatalf("ReadCSV = %v, %v; want %v", out, err, in)
	}
	_, err = ReadCSV(strings.NewReader("strategy,second,series,value\na,x,s,1\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("bad second: err = %v, want one naming line 2", err)
	}
}
