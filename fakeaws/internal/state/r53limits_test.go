package state

import (
	"strings"
	"testing"
)

func TestNameProblem(t *testing.T) {
	label63 := strings.Repeat("a", 63)
	for _, tc := range []struct{ name, want string }{
		{"www.example.com", ""},
		{"www.example.com.", ""},
		{`\052.example.com`, ""},
		{label63 + ".example.com", ""},
		{`a\040b.example`, ""},                                     // an escaped space is one byte of the label
		{strings.Repeat("abcdefghi.", 24) + "abcdefghijk.com", ""}, // 255 bytes
		{"", "DomainNameEmpty"},
		{".lead.example.com", "DomainLabelEmpty"},
		{"a..b.example", "DomainLabelEmpty"},
		{label63 + "a.example.com", "DomainLabelTooLong"},
		{strings.Repeat("abcdefghi.", 24) + "abcdefghijkl.com", "DomainNameTooLong"},
		{"sp ace.example", "InvalidCharacter"},
		{"tab\t.example", "InvalidCharacter"},
		{"f\xfcbar.example", "InvalidCharacter"},
	} {
		if got := nameProblem(tc.name); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("nameProblem(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestCharStringProblem(t *testing.T) {
	s255, s256 := `"`+strings.Repeat("x", 255)+`"`, `"`+strings.Repeat("x", 256)+`"`
	for _, tc := range []struct{ value, want string }{
		{`"v=spf1 -all"`, ""},
		{s255, ""},
		{s255 + " " + s255, ""},
		{`"` + strings.Repeat(`\"`, 255) + `"`, ""}, // an escaped quote is one character
		{`"` + strings.Repeat(`\101`, 255) + `"`, ""},
		{`""`, ""},
		{s256, "TXTRDATATooLong"},
		{s255 + " " + s256, "TXTRDATATooLong"},
		{`"` + strings.Repeat(`\101`, 256) + `"`, "TXTRDATATooLong"},
		{`unquoted`, "InvalidCharacterString"},
		{`"a" b "c"`, "InvalidCharacterString"},
		{`"open`, "InvalidCharacterString"},
		{`"a\"`, "InvalidCharacterString"},
	} {
		if got := charStringProblem(tc.value); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("charStringProblem(%.40q) = %q, want %q", tc.value, got, tc.want)
		}
	}
}

func TestMXProblem(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"10 mail.example.com", ""},
		{"0 mail.example.com.", ""},
		{"65535 mx", ""},
		{"mail.example.com", "MXRRDATANotTwoFields"},
		{"10 a b", "MXRRDATANotTwoFields"},
		{"65536 mx", "MXRRDATAIllegalPriority"},
		{"-1 mx", "MXRRDATAIllegalPriority"},
		{"010 mx", "MXRRDATAIllegalPriority"},
		{"ten mx", "MXRRDATAIllegalPriority"},
	} {
		if got := mxProblem(tc.value); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("mxProblem(%q) = %q, want %q", tc.value, got, tc.want)
		}
	}
}
