package machine

import "testing"

// A run's own processes are those whose arguments name its directory: not the harness, and not a
// run in a directory whose name merely begins with it (repeat-10 beside repeat-1).
func TestRunTicksByDirectory(t *testing.T) {
	start, _ := newProc("testdata/start")
	end, _ := newProc("testdata/end")
	got, err := start.runTicks("/o/lbc/repeat-1")
	if err != nil || len(got) != 1 || got[101] != 60 {
		t.Fatalf("repeat-1's processes at the start = %v, %v; want etcd (101) with 60 ticks", got, err)
	}
	// etcd exited by the end: what it used after the start is missed, never counted negative.
	to, _ := end.runTicks("/o/lbc/repeat-1")
	if s := runCPUSeconds(got, to); s != 0 {
		t.Errorf("CPU of a run whose processes exited = %v, want 0", s)
	}
	from10, _ := start.runTicks("/o/lbc/repeat-10")
	to10, _ := end.runTicks("/o/lbc/repeat-10")
	if s := runCPUSeconds(from10, to10); !near(s, 2) {
		t.Errorf("repeat-10's CPU = %v s, want 2 (300 → 500 ticks)", s)
	}
	// A process started after the first reading counts whole.
	if s := runCPUSeconds(map[int]int{}, to10); !near(s, 5) {
		t.Errorf("a new process's CPU = %v s, want 5", s)
	}
}
