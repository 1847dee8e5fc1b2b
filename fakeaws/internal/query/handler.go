package query

import (
	"sort"
	"time"
)

// Handler runs one operation at scenario time now and returns the response body that the service's
// wire layer encodes.
type Handler func(now time.Time, f *Form) (any, error)

// Operations lists the actions of a handler table, sorted.
func Operations(ops map[string]Handler) []string {
	out := make([]string, 0, len(ops))
	for k := range ops {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
