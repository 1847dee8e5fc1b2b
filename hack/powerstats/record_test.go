package main

import (
	"strings"
	"testing"
)

const recordHeader = "load\tcondition\trun\texit\twall_s\truns_per_side\tsaturated_runs\tstopped\tbuild\tfinished\n"

// One cell's verdicts, walls, runs per side and saturated runs add up across builds; a gate that
// wrote no results counts as an error and adds no runs.
func TestPrintRecordTablesEachCell(t *testing.T) {
	in := recordHeader +
		"quiet\taa\t1\t0\t220\t8\t1\tdecided\tv1\t2026-12-02T23:00:00Z\n" +
		"quiet\taa\t2\t75\t300\t12\t0\tmax\tv2\t2026-12-02T23:05:00Z\n" +
		"quiet\ts2\t1\t1\t210\t8\t0\tdecided\tv2\t2026-12-02T23:10:00Z\n" +
		"loaded\taa\t1\t75\t290\t8\t16\tsaturated\tv2\t2026-12-02T23:15:00Z\n" +
		"loaded\taa\t2\t2\t12\t-\t-\t-\t-\t2026-12-02T23:16:00Z\n"
	assertRecordTable(t, in, false,
		"| loaded | aa | 0 / 1 / 0 of 2, 1 errors | 151 s / 290 s | 8 / 8 | 16 of 16 | - 1, saturated 1 | - 1, v2 1 |",
		"| quiet | aa | 0 / 1 / 1 of 2 | 260 s / 300 s | 10 / 12 | 1 of 40 | decided 1, max 1 | v1 1, v2 1 |",
		"| quiet | s2 | 1 / 0 / 0 of 1 | 210 s / 210 s | 8 / 8 | 0 of 16 | decided 1 | v2 1 |",
	)
}

// By build, a cell's gates of two builds are two rows, each counting only its own.
func TestPrintRecordByBuildSplitsACell(t *testing.T) {
	in := recordHeader +
		"quiet\taa\t1\t75\t490\t24\t0\tmax\tv1\t2026-12-02T23:00:00Z\n" +
		"quiet\taa\t2\t0\t180\t8\t0\tdecided\tv2\t2026-12-02T23:05:00Z\n" +
		"quiet\taa\t3\t0\t260\t12\t0\tdecided\tv2\t2026-12-02T23:10:00Z\n"
	assertRecordTable(t, in, true,
		"| quiet | aa | 0 / 1 / 0 of 1 | 490 s / 490 s | 24 / 24 | 0 of 48 | max 1 | v1 1 |",
		"| quiet | aa | 0 / 0 / 2 of 2 | 220 s / 260 s | 10 / 12 | 0 of 40 | decided 2 | v2 2 |",
	)
}

// assertRecordTable reads the record in and checks the rows of the table printRecord writes.
func assertRecordTable(t *testing.T, in string, byBuild bool, want ...string) {
	t.Helper()
	rows, err := readRecord(strings.NewReader(in), "gates.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	printRecord(&out, rows, byBuild)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2+len(want) {
		t.Fatalf("table:\n%s", out.String())
	}
	for i, w := range want {
		if lines[2+i] != w {
			t.Errorf("row %d:\n got %s\nwant %s", i, lines[2+i], w)
		}
	}
}

func TestReadRecordNamesTheLineAndColumn(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{recordHeader + "quiet\taa\t1\t0\n", "gates.tsv:2: 4 columns, want 10"},
		{recordHeader + "quiet\taa\t1\tx\t220\t8\t1\tdecided\tv1\tt\n", "gates.tsv:2: exit"},
		{recordHeader + "quiet\taa\t1\t0\t220\t8\tmany\tdecided\tv1\tt\n", "gates.tsv:2: saturated_runs"},
	} {
		if _, err := readRecord(strings.NewReader(c.in), "gates.tsv"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzReadRecord(f *testing.F) {
	f.Add(recordHeader + "quiet\taa\t1\t0\t220\t8\t1\tdecided\tv1\tt\n")
	f.Add("loaded\te2\t3\t75\t290.5\t-\t-\t-\t-\tt\n")
	f.Fuzz(func(t *testing.T, in string) {
		rows, err := readRecord(strings.NewReader(in), "gates.tsv")
		if err != nil {
			return
		}
		printRecord(&strings.Builder{}, rows, false)
	})
}
