package reports_test

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// breakdownTable returns the breakdown table's rows as text cells.
func breakdownTable(t *testing.T, page string) [][]string {
	t.Helper()
	i := strings.Index(page, `id="blind-time-breakdown"`)
	if i < 0 {
		t.Fatal("no breakdown section")
	}
	table := page[i:]
	table = table[strings.Index(table, "<table>"):strings.Index(table, "</table>")]
	tags := regexp.MustCompile(`<[^>]+>`)
	var rows [][]string
	for _, tr := range strings.Split(table, "<tr>")[2:] { // after the header
		var cells []string
		for _, td := range strings.Split(tr, "<td")[1:] {
			td = td[strings.Index(td, ">")+1:]
			cells = append(cells, strings.Join(strings.Fields(html.UnescapeString(tags.ReplaceAllString(td, " "))), " "))
		}
		rows = append(rows, cells)
	}
	return rows
}

func TestBreakdownOfEveryRestart(t *testing.T) {
	r, _ := loadGolden(t)
	cp, _ := r.Strategy("checkpoint")
	second := results.RestartPhases{Mode: "graceful", StoppedSeconds: 300, OriginSeconds: 300, StartedSeconds: 300.5,
		LeaderElection: true, FirstAWSCallSeconds: ptr(303.0), FirstAWSCallService: "route53"}
	cp.Restarts = []results.RestartPhases{*cp.Restart, second}
	_, page := renderHTML(t, r)
	rows := breakdownTable(t, page)
	if len(rows) != 3 {
		t.Fatalf("%d breakdown rows, want no-checkpoint's one restart and checkpoint's two: %q", len(rows), rows)
	}
	// Strategy, six steps, blind time.
	want := [][]string{
		{"no-checkpoint", "at 60 s", "+1.20 s at 61.2 s", "no leader election", "unknown (not logged)", "+90.55 s at 151.8 s (elbv2)", "+90.75 s at 242.5 s"},
		{"checkpoint restart 1 of 2", "at 60 s", "+1.20 s at 61.2 s", "+300 ms at 61.5 s", "+500 ms at 62 s", "+625 ms at 62.62 s (elbv2)"},
		// The Lease never taken within the run, and no mutation: the first AWS call (a Route53 one: not
		// "never" for a controller that calls no ELBv2) counts from the start.
		{"checkpoint restart 2 of 2", "at 300 s", "+500 ms at 300.5 s", "never", "unknown (not logged)", "+2.50 s at 303 s (route53)", "never", "–"},
	}
	for i, w := range want {
		for j, cell := range w {
			if j >= len(rows[i]) || rows[i][j] != cell {
				t.Errorf("row %d cell %d = %q, want %q (row %q)", i, j, at(rows[i], j), cell, rows[i])
			}
		}
	}
	if !strings.Contains(page, "checkpoint, restart 2 (at 300 s): its process started 500 ms after the stop, never acquired the Lease") {
		t.Error("the second restart's story is missing")
	}
}

func at(cells []string, i int) string {
	if i < len(cells) {
		return cells[i]
	}
	return ""
}

func TestStandbyCostTable(t *testing.T) {
	r, _ := loadGolden(t)
	if _, page := renderHTML(t, r); strings.Contains(page, `id="standby-cost"`) {
		t.Error("a cost table for results that measured none")
	}
	cp, _ := r.Strategy("checkpoint")
	cp.Summary.APILoad = &results.APILoad{Lists: 14, Watches: 52, Gets: 3, LeaseWrites: 6}
	cp.Restart.AtStop = []results.InstanceAtStop{
		{Replica: 0, Role: results.RoleLeader, RSSBytes: 200 << 20, CPUSeconds: 12, UpSeconds: 60},
		{Replica: 1, Role: results.RoleStandby, RSSBytes: 150 << 20, CPUSeconds: 3, UpSeconds: 60},
	}
	_, page := renderHTML(t, r)
	i := strings.Index(page, `id="standby-cost"`)
	if i < 0 {
		t.Fatal("no cost table")
	}
	table := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(page[i:strings.Index(page[i:], "</table>")+i], " "))
	for _, want := range []string{"checkpoint", " 14 ", " 52 ", " 3 ", " 6 ",
		"replica 0: 200 MiB RSS, 12.00 s CPU in 60 s (0.200 cores)", "replica 1: 150 MiB RSS, 3.00 s CPU in 60 s (0.050 cores)"} {
		if !strings.Contains(table, want) {
			t.Errorf("cost table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "no-checkpoint") {
		t.Error("a row for a strategy that measured no cost")
	}
}

// A step a controller logs after the next one (its first AWS call came from another of its
// controllers before this one's caches synced) shows as earlier, not as a negative "later".
func TestBreakdownStepBeforeThePrevious(t *testing.T) {
	r, _ := loadGolden(t)
	cp, _ := r.Strategy("checkpoint")
	ph := results.RestartPhases{Mode: "crash", StoppedSeconds: 300, OriginSeconds: 300, StartedSeconds: 300.5,
		CachesSyncedSeconds: ptr(303.2), FirstAWSCallSeconds: ptr(303.0)}
	cp.Restarts = []results.RestartPhases{*cp.Restart, ph}
	_, page := renderHTML(t, r)
	rows := breakdownTable(t, page)
	if len(rows) != 3 || at(rows[2], 4) != "+2.70 s at 303.2 s" || at(rows[2], 5) != "−200 ms at 303 s" {
		t.Fatalf("breakdown rows %q, want the second restart with caches synced +2.70 s and the first reconcile −200 ms", rows)
	}
	if !strings.Contains(page, "synced its caches 2.70 s later, reached AWS 200 ms earlier") {
		t.Error("the story does not say the first reconcile came earlier")
	}
}
