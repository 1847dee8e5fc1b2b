package objects

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws"
)

// checkMutation refuses an operation name fakeaws never records (a typo such as ModifyTargetGroups
// would leave the change without a first meaningful mutation, found only after the run), naming
// the operations it serves.
func checkMutation(name string) string {
	if name == "" {
		return "empty operation name"
	}
	if fakeaws.IsOperation(name) {
		return ""
	}
	ops := fakeaws.Operations()
	var b strings.Builder
	fmt.Fprintf(&b, "%q is not an operation fakeaws serves", name)
	if near := nearestOperation(name, ops); near != "" {
		fmt.Fprintf(&b, " (did you mean %s?)", near)
	}
	b.WriteString("; it serves")
	for i, svc := range slices.Sorted(maps.Keys(ops)) {
		if i > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s: %s", svc, strings.Join(ops[svc], ", "))
	}
	return b.String()
}

// nearestOperation is the served operation closest to name by edit distance, when it is close
// enough to be the intended one.
func nearestOperation(name string, ops map[string][]string) string {
	best, bestD := "", 3 // at most two edits away
	for _, svc := range slices.Sorted(maps.Keys(ops)) {
		for _, op := range ops[svc] {
			if d := editDistance(strings.ToLower(name), strings.ToLower(op)); d < bestD {
				best, bestD = op, d
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
