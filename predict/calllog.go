package predict

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/restartsim/restartsim/internal/regularfile"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
)

// Run is one strategy of a results file with its AWS call log.
type Run struct {
	Results  *results.Results
	Strategy *results.Strategy
	Calls    []fakeaws.Call
}

// Load reads a results file and the call log the named strategy left beside it
// (<dir>/<strategy>/aws-calls.jsonl). An empty strategy picks the only one.
func Load(resultsPath, strategy string) (*Run, error) {
	res, err := results.Load(resultsPath)
	if err != nil {
		return nil, err
	}
	st, err := pickStrategy(res, strategy)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", resultsPath, err)
	}
	logPath := filepath.Join(filepath.Dir(resultsPath), st.Name, "aws-calls.jsonl")
	calls, err := ReadCallLog(logPath)
	if err != nil {
		return nil, err
	}
	return &Run{Results: res, Strategy: st, Calls: calls}, nil
}

func pickStrategy(res *results.Results, name string) (*results.Strategy, error) {
	if name != "" {
		if st, ok := res.Strategy(name); ok {
			return st, nil
		}
		return nil, fmt.Errorf("no strategy %q (have %s)", name, strategyNames(res))
	}
	if len(res.Strategies) != 1 {
		return nil, fmt.Errorf("%d strategies (%s): name one with --strategy", len(res.Strategies), strategyNames(res))
	}
	return &res.Strategies[0], nil
}

func strategyNames(res *results.Results) string {
	s := ""
	for i, st := range res.Strategies {
		if i > 0 {
			s += ", "
		}
		s += st.Name
	}
	return s
}

// ReadCallLog reads an aws-calls.jsonl, naming the line of a record it cannot read.
func ReadCallLog(path string) ([]fakeaws.Call, error) {
	f, err := regularfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the AWS call log: %w", err)
	}
	defer f.Close()
	var calls []fakeaws.Call
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var c fakeaws.Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return calls, nil
}
