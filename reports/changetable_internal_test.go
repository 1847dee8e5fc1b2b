package reports

import (
	"testing"

	"github.com/restartsim/restartsim/results"
)

// A change to an object of a scenario's object group is listed by its group, namespace and name, as a
// binding's or an Ingress's is by theirs.
func TestChangeTableNamesEachKindOfObject(t *testing.T) {
	r := &results.Results{Strategies: []results.Strategy{{Name: "ack", Changes: []results.Change{
		{ID: "c1", Kind: "scale-up", TGB: "ns/tgb-1"},
		{ID: "c2", Kind: "ingress-rule", Ingress: "ns/web"},
		{ID: "c3", Kind: "patch", Object: "targetgroups/ns/tg-3"},
	}}}}
	rows := changeTables(r)[0].Rows
	for i, want := range []string{"ns/tgb-1", "Ingress ns/web", "targetgroups/ns/tg-3"} {
		if rows[i].Object != want {
			t.Errorf("row %d names %q, want %q", i, rows[i].Object, want)
		}
	}
}
