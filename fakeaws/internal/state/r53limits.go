package state

import (
	"fmt"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// Route53's documented limits on the fields of a request (API reference: ResourceRecord, ResourceRecordSet,
// AliasTarget, ChangeBatch, HostedZoneConfig, CreateHostedZone, Tag, ListResourceRecordSets).
const (
	MaxValueChars     = 4000
	MaxSetIDChars     = 128
	MaxDNSNameChars   = 1024
	MaxCommentChars   = 256
	MaxCallerRefChars = 128
	MaxTagKeyChars    = 128
	MaxTagValueChars  = 256
	// MaxCharString is a TXT or SPF character string's longest text (RFC 1035).
	MaxCharString = 255
)

// TooLong is Route53's InvalidInput for a field over its length constraint.
func TooLong(field string, limit int) error {
	return query.Errorf("InvalidInput", "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d", field, limit)
}

// nameProblem returns what makes a DNS name invalid by Route53's "DNS domain name format": an empty label,
// a label over 63 bytes, more than 255 bytes in all (each \ooo escape counting one), or a byte that must be
// escaped (space and other control characters, bytes above 126). "" when the name is fine.
func nameProblem(name string) string {
	n := strings.TrimSuffix(name, ".")
	if n == "" {
		return "DomainNameEmpty (Domain name is empty)"
	}
	total, label := 0, 0
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c == '.':
			if label == 0 {
				return "DomainLabelEmpty (Domain label is empty)"
			}
			label = 0
			total++
			continue
		case c == '\\' && i+4 <= len(n) && isOctal(n[i+1:i+4]):
			i += 3
		case c <= ' ' || c >= 0x7f:
			return fmt.Sprintf("InvalidCharacter (Character %q must be written as an \\ooo escape)", c)
		}
		label++
		total++
		if label > 63 {
			return "DomainLabelTooLong (Domain label is too long)"
		}
	}
	switch {
	case label == 0:
		return "DomainLabelEmpty (Domain label is empty)"
	case total > 255:
		return "DomainNameTooLong (Domain name is too long)"
	}
	return ""
}

func nameFault(problem, name string) string {
	return fmt.Sprintf("FATAL problem: %s encountered with '%s'", problem, name)
}

// NameFault is Route53's message for a DNS name that breaks "DNS domain name format", "" for a good one.
func NameFault(name string) string {
	if p := nameProblem(name); p != "" {
		return nameFault(p, name)
	}
	return ""
}

// validZoneName refuses a zone name Route53 cannot host: malformed, a wildcard, or a top-level domain.
func validZoneName(name string) error {
	bad := func(why string) error {
		return query.Errorf("InvalidDomainName", "%s is not a valid domain name: %s", name, why)
	}
	switch n := strings.TrimSuffix(name, "."); {
	case len(name) > MaxDNSNameChars:
		return bad("longer than 1024 characters")
	case nameProblem(name) != "":
		return bad(nameProblem(name))
	case strings.Contains(n, "*"):
		return bad("a hosted zone name cannot hold a wildcard")
	case !strings.Contains(n, "."):
		return bad("a hosted zone cannot be created for a top-level domain")
	}
	return nil
}

// charStringProblem returns Route53's problem with a TXT or SPF value: one or more quoted character strings
// separated by spaces, each of at most 255 characters (\" and \ooo counting one). "" when it is fine.
func charStringProblem(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "InvalidCharacterString (Value should be enclosed in quotation marks)"
	}
	in, n := false, 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case !in && c == '"':
			in, n = true, 0
		case !in && c == ' ':
		case !in:
			return "InvalidCharacterString (Value should be enclosed in quotation marks)"
		case c == '"':
			in = false
		case c == '\\' && i+3 < len(v) && isOctal(v[i+1:i+4]):
			i += 3
			n++
		case c == '\\' && i+1 < len(v):
			i++
			n++
		default:
			n++
		}
		if n > MaxCharString {
			return "TXTRDATATooLong (Character string is longer than 255 characters)"
		}
	}
	if in {
		return "InvalidCharacterString (Value should be enclosed in quotation marks)"
	}
	return ""
}

// mxProblem returns the problem with an MX value, "priority mail-server", "" when it is fine.
func mxProblem(v string) string {
	f := strings.Fields(v)
	if len(f) != 2 {
		return "MXRRDATANotTwoFields (MX value must be a priority and a mail server)"
	}
	var p int
	if _, err := fmt.Sscanf(f[0], "%d", &p); err != nil || p < 0 || p > 65535 || fmt.Sprint(p) != f[0] {
		return "MXRRDATAIllegalPriority (MX priority must be an integer from 0 to 65535)"
	}
	return ""
}

// validFields applies the length constraints of a change's fields (InvalidInput).
func validFields(r *RecordSet) error {
	for _, v := range r.Values {
		if len(v) > MaxValueChars {
			return TooLong("changeBatch.changes.member.resourceRecordSet.resourceRecords.member.value", MaxValueChars)
		}
	}
	switch {
	case len(r.SetIdentifier) > MaxSetIDChars:
		return TooLong("changeBatch.changes.member.resourceRecordSet.setIdentifier", MaxSetIDChars)
	case r.AliasTarget != nil && len(r.AliasTarget.DNSName) > MaxDNSNameChars:
		return TooLong("changeBatch.changes.member.resourceRecordSet.aliasTarget.dNSName", MaxDNSNameChars)
	}
	return nil
}
