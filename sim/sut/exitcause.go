package sut

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

const (
	// refusalsShown is how many kinds of refused calls an exit error names.
	refusalsShown = 3
	// logTailBytes is how much of a process's log the search for its last error reads.
	logTailBytes = 64 << 10
	// maxErrorLine bounds the log line an exit error quotes.
	maxErrorLine = 300
)

// refusals groups the calls AWS refused (outcome error) at or after from by service, operation,
// code and message, most frequent first, the first refusalsShown of them: the calls of the process
// that started then, when it exited because AWS would not have it.
func refusals(calls []fakeaws.Call, from time.Time) []string {
	type key struct{ svc, op, code, msg string }
	counts := map[key]int{}
	var order []key
	for i := range calls {
		c := &calls[i]
		if c.Outcome != fakeaws.OutcomeError || c.Time.Before(from) {
			continue
		}
		k := key{c.Service, c.Operation, c.ErrorCode, c.ErrorMessage}
		if counts[k] == 0 {
			order = append(order, k)
		}
		counts[k]++
	}
	slices.SortStableFunc(order, func(a, b key) int { return cmp.Compare(counts[b], counts[a]) })
	var out []string
	for _, k := range order[:min(refusalsShown, len(order))] {
		s := fmt.Sprintf("%s %s %s × %d", k.svc, k.op, k.code, counts[k])
		if k.msg != "" {
			s += fmt.Sprintf(" (%q)", k.msg)
		}
		out = append(out, s)
	}
	if more := len(order) - refusalsShown; more > 0 {
		out = append(out, fmt.Sprintf("%d more kinds", more))
	}
	return out
}

// errorLine matches a log line that reports an error in the usual formats: logr/zap JSON
// ("level":"error"), logfmt (level=error), klog (E1207 ...), or words such as error, fatal, panic.
var errorLine = regexp.MustCompile(`(?i)"level"\s*:\s*"(error|fatal|panic)"|level=(error|fatal|panic)\b|^[EF]\d{4} |\b(error|fatal|panic)\b`)

// lastErrorLine is the last line of the log at path (its last logTailBytes) that reports an error,
// "" if none does or it cannot be read; the harness's own lines are not the controller's.
func lastErrorLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > logTailBytes {
		if _, err := f.Seek(-logTailBytes, io.SeekEnd); err != nil {
			return ""
		}
	}
	last := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), logTailBytes)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "[restartsim]") && errorLine.MatchString(line) {
			last = line
		}
	}
	if len(last) > maxErrorLine {
		last = last[:maxErrorLine] + "…"
	}
	return last
}
