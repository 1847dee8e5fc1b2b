package state

import (
	"fmt"
	"slices"
	"strings"
)

// CanonicalName is a DNS name as Route53 stores and returns it: lower case, with a trailing dot, and every
// byte other than a letter, digit, hyphen, underscore or dot escaped as \ooo (so "*" is "\052"). An escape
// the client already wrote is kept.
func CanonicalName(name string) string {
	var b strings.Builder
	b.Grow(len(name) + 1)
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '\\' && i+3 < len(name) && isOctal(name[i+1:i+4]):
			b.WriteString(name[i : i+4])
			i += 3
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "\\%03o", c)
		}
	}
	if !strings.HasSuffix(b.String(), ".") {
		b.WriteByte('.')
	}
	return b.String()
}

func isOctal(s string) bool {
	return len(s) == 3 && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' && s[2] <= '7'
}

// nameKey orders names as Route53 lists them: by labels from the root down (www.example.com. sorts as
// com, example, www), so a name comes right before the names below it.
func nameKey(canonical string) string {
	labels := strings.Split(strings.TrimSuffix(canonical, "."), ".")
	slices.Reverse(labels)
	// \x00 is below every byte a canonical label holds, so comparing keys compares label by label.
	return strings.Join(labels, "\x00")
}

// recordKey orders record sets: by name (nameKey), then type, then set identifier.
func recordKey(name, typ, setID string) string {
	return nameKey(name) + "\x00\x00" + typ + "\x00" + setID
}

// inZone reports whether a canonical name is the zone's apex or below it.
func inZone(name, zone string) bool {
	return name == zone || strings.HasSuffix(name, "."+zone)
}

// DescribeSet names a record set the way Route53's messages do.
func DescribeSet(r RecordSet) string {
	if r.SetIdentifier != "" {
		return fmt.Sprintf("[name='%s', type='%s', set-identifier='%s']", r.Name, r.Type, r.SetIdentifier)
	}
	return fmt.Sprintf("[name='%s', type='%s']", r.Name, r.Type)
}

// NameOrder is the sort key of a canonical name in Route53's listing order.
func NameOrder(canonical string) string { return nameKey(canonical) }
