package fakeaws_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// realisticCall is a RegisterTargets call of the size the controller makes, with fresh strings (as a
// request's form would give them).
func realisticCall(i int) fakeaws.Call {
	return fakeaws.Call{
		Time: t0.Add(time.Duration(i) * time.Millisecond), Service: fakeaws.ServiceELBv2, Operation: strings.Clone("RegisterTargets"),
		TargetGroupARN: fmt.Sprintf("arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/k8s-ns-svc-%06d/0123456789abcdef", i),
		Targets:        []fakeaws.Target{{ID: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255), Port: 8080}},
		Outcome:        fakeaws.OutcomeOK, HTTPStatus: 200, Bucket: "RegisterTargets", Latency: time.Millisecond,
		RequestID: fmt.Sprintf("00000000-0000-4000-8000-%012x", i),
	}
}

func rssBytes(t testing.TB) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmRSS")
	return 0
}

// TestMillionCallsStayBounded: a server with default options records a million calls in under 64 MB more
// RSS, holding the newest ones and counting the rest as dropped.
func TestMillionCallsStayBounded(t *testing.T) {
	srv, err := fakeaws.New(fakeaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	debug.FreeOSMemory() // RSS counts what the process holds, not garbage the runtime has yet to return
	before := rssBytes(t)
	const n = 1_000_000
	for i := range n {
		srv.Observe(realisticCall(i))
	}
	debug.FreeOSMemory()
	grew := rssBytes(t) - before
	held := srv.Recorder().Len() - int(srv.Recorder().Dropped())
	t.Logf("%d calls recorded: RSS grew %.1f MB, %d held, %d dropped", n, float64(grew)/(1<<20), held, srv.Recorder().Dropped())
	if grew > 64<<20 {
		t.Fatalf("RSS grew %.1f MB for %d calls, want < 64 MB", float64(grew)/(1<<20), n)
	}
	calls := srv.Recorder().Calls()
	if len(calls) != held || held != fakeaws.DefaultMaxRecordedCalls || calls[len(calls)-1].Seq != n || calls[0].Seq != n-fakeaws.DefaultMaxRecordedCalls+1 {
		t.Fatalf("held %d calls (%d..%d), want the newest %d", len(calls), calls[0].Seq, calls[len(calls)-1].Seq, fakeaws.DefaultMaxRecordedCalls)
	}
	runtime.KeepAlive(srv)
}

// TestRecorderRing: a small ring keeps the newest calls in order, Since counts by Seq across the drop, and
// /calls streams what is held with the dropped count in a header.
func TestRecorderRing(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxRecordedCalls: 3})
	for i := range 5 {
		e.srv.Observe(realisticCall(i))
	}
	rec := e.srv.Recorder()
	if rec.Len() != 5 || rec.Dropped() != 2 {
		t.Fatalf("Len %d Dropped %d, want 5 and 2", rec.Len(), rec.Dropped())
	}
	seqs := func(cs []fakeaws.Call) (out []uint64) {
		for _, c := range cs {
			out = append(out, c.Seq)
		}
		return out
	}
	if got := fmt.Sprint(seqs(rec.Calls()), seqs(rec.Since(0)), seqs(rec.Since(3)), seqs(rec.Since(5))); got != "[3 4 5] [3 4 5] [4 5] []" {
		t.Fatalf("Calls, Since(0), Since(3), Since(5) = %s", got)
	}
	for since, want := range map[string]string{"": "[3 4 5]", "4": "[5]", "9": "[]"} {
		req, _ := http.NewRequest(http.MethodGet, e.http.URL+"/_restartsim/calls?since="+since, nil)
		req.Header.Set(fakeaws.AdminAccessKeyHeader, testKey)
		req.Header.Set(fakeaws.AdminSecretKeyHeader, testSecret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var calls []fakeaws.Call
		if err := json.NewDecoder(resp.Body).Decode(&calls); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := fmt.Sprint(seqs(calls)); got != want || resp.Header.Get(fakeaws.DroppedCallsHeader) != "2" {
			t.Fatalf("/calls?since=%s = %s (dropped %q), want %s (dropped 2)", since, got, resp.Header.Get(fakeaws.DroppedCallsHeader), want)
		}
	}
	rec.Reset()
	e.srv.Observe(realisticCall(9))
	if cs := rec.Calls(); len(cs) != 1 || cs[0].Seq != 1 {
		t.Fatalf("after Reset: %v", seqs(cs))
	}
}
