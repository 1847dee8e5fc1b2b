package predict

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/restartsim/restartsim/fakeaws"
)

// FuzzFitCallLog feeds arbitrary call logs to the fit and the check: whatever the log says, they
// return a model or an error, never panic or loop.
func FuzzFitCallLog(f *testing.F) {
	seed, err := os.ReadFile("testdata/quickstart/checkpoint/aws-calls.jsonl")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(`{"time":"2026-12-05T00:00:16Z","service":"elbv2","operation":"DescribeTargetHealth","targetGroupArn":"x","outcome":"ok","bucket":"elbv2/describe"}`))
	f.Add([]byte(`{"time":"2026-12-05T00:00:16Z","service":"ec2","operation":"DescribeVpcs","outcome":"throttled","bucket":"ec2/describe/DescribeVpcs"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		run := oneWorkerRun(3, 1, nil, -1, 0)
		run.Calls = nil
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			var c fakeaws.Call
			if json.Unmarshal(sc.Bytes(), &c) == nil {
				run.Calls = append(run.Calls, c)
			}
		}
		m, err := Fit(run)
		if err != nil {
			return
		}
		if _, err := m.Explain(); err != nil {
			return
		}
		_, _ = m.Forecast(30, 5, 1)
	})
}
