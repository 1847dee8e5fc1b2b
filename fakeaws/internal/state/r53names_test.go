package state

import (
	"slices"
	"sort"
	"testing"
)

func TestCanonicalName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Example.COM", "example.com."},
		{"example.com.", "example.com."},
		{"*.example.com", `\052.example.com.`},
		{`\052.example.com.`, `\052.example.com.`},
		{"a b.example", `a\040b.example.`},
		{"_acme-challenge.x.example", "_acme-challenge.x.example."},
		{`bad\9.example`, `bad\1349.example.`},
	} {
		if got := CanonicalName(tc.in); got != tc.want {
			t.Errorf("CanonicalName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Route53 lists names by their labels from the root down, so a name comes right before the names under it
// and "a-b" (a hyphen) sorts after "a" with its subdomains, unlike a plain string comparison.
func TestRecordOrder(t *testing.T) {
	want := []string{"example.com.", "a.example.com.", "x.a.example.com.", "a-b.example.com.", "b.example.com.", "example.net."}
	got := slices.Clone(want)
	slices.Reverse(got)
	sort.Slice(got, func(i, j int) bool { return nameKey(got[i]) < nameKey(got[j]) })
	if !slices.Equal(got, want) {
		t.Errorf("order %q, want %q", got, want)
	}
	if !(recordKey("a.example.", "A", "") < recordKey("a.example.", "TXT", "") && recordKey("a.example.", "TXT", "z") < recordKey("x.a.example.", "A", "")) {
		t.Error("a name's sets must sort by type and come before the names under it")
	}
}
