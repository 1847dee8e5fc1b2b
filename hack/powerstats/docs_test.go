package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The record's table in docs/history/gate-record.md is this tool's output, pasted: a gate run added to the
// record must reach the page too, or the page's acceptance figures describe fewer gates than the
// record holds.
func TestPerformanceDocTablesTheRecord(t *testing.T) {
	const record, doc = "../../docs/power/gates.tsv", "../../docs/history/gate-record.md"
	f, err := os.Open(record)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	rows, err := readRecord(f, record)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	printRecord(&table, rows, true)
	page, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), strings.TrimSpace(table.String())) {
		t.Errorf("%s does not hold the record's table; paste the output of\n"+
			"  go run ./hack/powerstats -dir /nonexistent -record docs/power/gates.tsv -by-build\n"+
			"into its \"Real gate runs\" table:\n%s", doc, table.String())
	}
}
