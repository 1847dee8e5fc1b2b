package measure

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Each request counts once: at completion, or a watch at its start, so that a watch still open
// when the log is read counts too; other users' requests are not the controller's.
func TestReadAuditCountsEachRequestOnce(t *testing.T) {
	line := func(stage, verb, user, resource, at string, code int) string {
		return `{"kind":"Event","stage":"` + stage + `","verb":"` + verb + `","user":{"username":"` + user +
			`"},"requestReceivedTimestamp":"` + at + `","objectRef":{"resource":"` + resource +
			`","namespace":"ns"},"responseStatus":{"code":` + strconv.Itoa(code) + `}}` + "\n"
	}
	log := line("ResponseComplete", "list", "ctrl", "pods", "2026-01-01T00:00:01Z", 200) +
		line("ResponseStarted", "watch", "ctrl", "pods", "2026-01-01T00:00:02Z", 200) +
		line("ResponseComplete", "watch", "ctrl", "pods", "2026-01-01T00:00:02Z", 200) + // the same watch ending
		line("ResponseStarted", "watch", "ctrl", "services", "2026-01-01T00:00:03Z", 200) + // still open
		line("ResponseComplete", "patch", "ctrl", "targetgroupbindings", "2026-01-01T00:00:04Z", 200) +
		line("ResponseComplete", "get", "someone-else", "pods", "2026-01-01T00:00:05Z", 200) +
		"not json\n"
	path := filepath.Join(t.TempDir(), "audit.log")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	got, err := ReadAudit(path, "ctrl", func(at time.Time) float64 { return at.Sub(t0).Seconds() })
	if err != nil {
		t.Fatal(err)
	}
	want := []AuditEvent{
		{At: 1, Verb: "list", Resource: "pods", Namespace: "ns", Code: 200},
		{At: 2, Verb: "watch", Resource: "pods", Namespace: "ns", Code: 200},
		{At: 3, Verb: "watch", Resource: "services", Namespace: "ns", Code: 200},
		{At: 4, Verb: "patch", Resource: "targetgroupbindings", Namespace: "ns", Code: 200},
	}
	if len(got) != len(want) {
		t.Fatalf("events %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
