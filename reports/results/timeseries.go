package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// Series names in timeseries.csv. Per-operation series append ":<Operation>".
const (
	SeriesAWSCalls      = "aws_calls"     // + ":<Operation>", calls in the bucket
	SeriesAWSThrottled  = "aws_throttled" // + ":<Operation>", throttled calls in the bucket
	SeriesQueueDepth    = "workqueue_depth"
	SeriesDeferredDepth = "deferred_queue_depth"
	// Memory per controller instance, + ":<instance>" (HarnessInstance for the harness's process):
	// the largest reading in the bucket.
	SeriesMemoryRSS  = "memory_rss_bytes"
	SeriesMemoryHeap = "memory_heap_inuse_bytes"
)

// Sample is one row of timeseries.csv: the value of a series in the 1-second bucket starting at
// Second (scenario seconds since the measured phase began) for one strategy.
type Sample struct {
	Strategy string
	Second   int
	Series   string
	Value    float64
}

var header = []string{"strategy", "second", "series", "value"}

// WriteCSV writes samples in long format, one row each.
func WriteCSV(w io.Writer, samples []Sample) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, s := range samples {
		row := []string{s.Strategy, strconv.Itoa(s.Second), s.Series, strconv.FormatFloat(s.Value, 'g', -1, 64)}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV parses timeseries.csv; errors name the line.
func ReadCSV(r io.Reader) ([]Sample, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(header)
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("timeseries.csv: empty, want header %v", header)
	}
	for i, h := range header {
		if rows[0][i] != h {
			return nil, fmt.Errorf("timeseries.csv line 1: column %d is %q, want %q", i+1, rows[0][i], h)
		}
	}
	out := make([]Sample, 0, len(rows)-1)
	for i, row := range rows[1:] {
		sec, err := strconv.Atoi(row[1])
		if err != nil {
			return nil, fmt.Errorf("timeseries.csv line %d: second: %w", i+2, err)
		}
		val, err := strconv.ParseFloat(row[3], 64)
		if err != nil {
			return nil, fmt.Errorf("timeseries.csv line %d: value: %w", i+2, err)
		}
		out = append(out, Sample{Strategy: row[0], Second: sec, Series: row[2], Value: val})
	}
	return out, nil
}
