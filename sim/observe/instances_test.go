package observe

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// An instance is leaked while it is pending or running and no provider ID names it; one that is
// shutting down or gone, or that the harness seeded, is not.
func TestLeakedInstances(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	insts := []fakeaws.Instance{
		{ID: "i-named-node", State: "running", RunningAt: at},
		{ID: "i-named-claim", State: "pending", RunningAt: at},
		{ID: "i-leaked-running", State: "running", RunningAt: at},
		{ID: "i-leaked-pending", State: "pending", RunningAt: at},
		{ID: "i-terminating", State: "shutting-down", RunningAt: at},
		{ID: "i-terminated", State: "terminated", RunningAt: at},
		{ID: "i-seeded", State: "running"},
	}
	ids := []string{"aws:///us-west-2a/i-named-node", "aws:///us-west-2b/i-named-claim", "", "aws:///us-west-2a/"}
	got := LeakedInstances(insts, ids)
	if len(got) != 2 || got[0].ID != "i-leaked-pending" || got[1].ID != "i-leaked-running" {
		t.Fatalf("leaked %+v, want i-leaked-pending and i-leaked-running", got)
	}
	if got := LeakedInstances(insts[:2], ids); len(got) != 0 {
		t.Errorf("every instance named: leaked %+v", got)
	}
}
