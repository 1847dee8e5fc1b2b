package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// gateRow is one real gate run of the record hack/power-study.sh keeps (RECORD=...): the load it
// ran under, its condition, exit code and wall time, and what its results.json says.
type gateRow struct {
	load, condition string
	exit            int
	wall            float64
	// perSide and saturated are -1 when the gate wrote no results.
	perSide, saturated int
	stopped, build     string
}

// exitVerdict names a `restartsim gate` exit code.
func exitVerdict(code int) string {
	switch code {
	case 0:
		return "pass"
	case 1:
		return "fail"
	case 75:
		return "inconclusive"
	}
	return "error"
}

// readRecord parses the record: a header row, then load, condition, run, exit, wall_s,
// runs_per_side, saturated_runs, stopped, build and finished, tab-separated.
func readRecord(r io.Reader, name string) ([]gateRow, error) {
	var rows []gateRow
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if line == 1 && cols[0] == "load" {
			continue
		}
		if len(cols) != 10 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 10 (load, condition, run, exit, wall_s, runs_per_side, saturated_runs, stopped, build, finished)", name, line, len(cols))
		}
		row := gateRow{load: cols[0], condition: cols[1], stopped: cols[7], build: cols[8], perSide: -1, saturated: -1}
		var err error
		if row.exit, err = strconv.Atoi(cols[3]); err != nil {
			return nil, fmt.Errorf("%s:%d: exit: %w", name, line, err)
		}
		if row.wall, err = strconv.ParseFloat(cols[4], 64); err != nil {
			return nil, fmt.Errorf("%s:%d: wall_s: %w", name, line, err)
		}
		for i, dst := range []*int{&row.perSide, &row.saturated} {
			if cols[5+i] == "-" {
				continue
			}
			if *dst, err = strconv.Atoi(cols[5+i]); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", name, line, []string{"runs_per_side", "saturated_runs"}[i], err)
			}
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// printRecord writes one table row per load and condition: the verdicts, wall times, runs per side,
// saturated runs, why sampling stopped and the builds that ran. byBuild gives each build a row of its
// own, for when a later build judges differently (a changed scenario) and its runs must not be
// counted with the earlier ones.
func printRecord(w io.Writer, rows []gateRow, byBuild bool) {
	type cell struct{ load, condition, build string }
	cells := map[cell][]gateRow{}
	for _, r := range rows {
		c := cell{load: r.load, condition: r.condition}
		if byBuild {
			c.build = r.build
		}
		cells[c] = append(cells[c], r)
	}
	keys := slices.SortedFunc(maps.Keys(cells), func(a, b cell) int {
		return strings.Compare(a.load+"\x00"+a.condition+"\x00"+a.build, b.load+"\x00"+b.condition+"\x00"+b.build)
	})
	fmt.Fprintln(w, "| load | condition | real gate runs: fail / inconclusive / pass | wall median / max | runs per side median / max | saturated runs | stopped | builds |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, k := range keys {
		var t tally
		var perSide []float64 // of the gates that wrote results
		stopped, builds := map[string]int{}, map[string]int{}
		sat, all := 0, 0
		for _, r := range cells[k] {
			t.add(exitVerdict(r.exit), r.wall, 0)
			stopped[r.stopped]++
			builds[r.build]++
			if r.perSide >= 0 {
				perSide = append(perSide, float64(r.perSide))
				sat += max(r.saturated, 0)
				all += 2 * r.perSide
			}
		}
		counts := t.counts()
		if e := t.verdicts["error"]; e > 0 {
			counts += fmt.Sprintf(", %d errors", e)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %d of %d | %s | %s |\n", k.load, k.condition, counts, t.wall(), medMax(perSide, ""),
			sat, all, countList(stopped), countList(builds))
	}
}

// countList writes "a 3, b 1", most frequent first.
func countList(m map[string]int) string {
	names := slices.Collect(maps.Keys(m))
	slices.SortFunc(names, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %d", n, m[n])
	}
	return strings.Join(parts, ", ")
}

// printRecordFile prints the record at path.
func printRecordFile(path string, byBuild bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rows, err := readRecord(f, path)
	if err != nil {
		return err
	}
	fmt.Println()
	printRecord(os.Stdout, rows, byBuild)
	return nil
}
