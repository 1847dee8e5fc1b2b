package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/restartsim/restartsim/internal/regularfile"
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

// MaxSamples bounds the rows of a timeseries.csv (about 60 MiB of them; a 3,000-binding run
// writes a few thousand).
const MaxSamples = 2_000_000

// LoadCSV reads the timeseries.csv at path (see ReadCSV); errors name the file.
func LoadCSV(path string) ([]Sample, error) {
	f, err := regularfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ts, err := ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ts, nil
}

// ReadCSV parses timeseries.csv, at most MaxFileBytes and MaxSamples rows of it; errors name the
// line and the column. A second lies in [0, MaxSeconds] and a value in [0, MaxCount] (counts and
// queue depths).
func ReadCSV(r io.Reader) ([]Sample, error) {
	lr := &io.LimitedReader{R: r, N: MaxFileBytes + 1}
	cr := csv.NewReader(lr)
	cr.FieldsPerRecord = len(header)
	cr.ReuseRecord = true
	readError := func(err error) error {
		if lr.N <= 0 {
			return fmt.Errorf("too large: more than %d MiB", MaxFileBytes>>20)
		}
		return err
	}
	row, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("empty, want header %v", header)
	}
	if err != nil {
		return nil, readError(err)
	}
	for i, h := range header {
		if row[i] != h {
			return nil, fmt.Errorf("line 1: column %d is %q, want %q", i+1, trunc(row[i]), h)
		}
	}
	// Names repeat on every row: keep one copy of each.
	names := map[string]string{}
	intern := func(s string) string {
		if v, ok := names[s]; ok {
			return v
		}
		names[s] = s
		return s
	}
	var out []Sample
	for {
		row, err = cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readError(err)
		}
		line, _ := cr.FieldPos(0)
		if len(out) == MaxSamples {
			return nil, fmt.Errorf("line %d: more than %d samples", line, MaxSamples)
		}
		s, err := parseSample(row)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		s.Strategy, s.Series = intern(s.Strategy), intern(s.Series)
		out = append(out, s)
	}
	if lr.N <= 0 {
		return nil, readError(nil)
	}
	return out, nil
}

func parseSample(row []string) (Sample, error) {
	for i, col := range []string{"strategy", "series"} {
		if n := len(row[2*i]); n > MaxNameBytes {
			return Sample{}, fmt.Errorf("%s: %d bytes, more than %d", col, n, MaxNameBytes)
		}
	}
	sec, err := strconv.Atoi(row[1])
	switch {
	case err != nil:
		return Sample{}, fmt.Errorf("second: %w", err)
	case sec < 0 || sec > MaxSeconds:
		return Sample{}, fmt.Errorf("second: %d is outside [0, %d]", sec, MaxSeconds)
	}
	val, err := strconv.ParseFloat(row[3], 64)
	switch {
	case err != nil:
		return Sample{}, fmt.Errorf("value: %w", err)
	case math.IsNaN(val) || math.IsInf(val, 0) || val < 0 || val > MaxCount:
		return Sample{}, fmt.Errorf("value: %g is outside [0, %g]", val, float64(MaxCount))
	}
	return Sample{Strategy: row[0], Second: sec, Series: row[2], Value: val}, nil
}
