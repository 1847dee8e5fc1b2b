package state

import "testing"

func TestRuleCovers(t *testing.T) {
	tcp := func(from, to int32, src string) Rule {
		return Rule{Protocol: "tcp", FromPort: from, ToPort: to, SourceGroupID: src}
	}
	for _, tc := range []struct {
		name       string
		have, want Rule
		covers     bool
	}{
		{"same rule", tcp(8080, 8080, "sg-a"), tcp(8080, 8080, "sg-a"), true},
		{"merged range", tcp(30938, 31652, "sg-a"), tcp(31652, 31652, "sg-a"), true},
		{"range ends short", tcp(30938, 31000, "sg-a"), tcp(31652, 31652, "sg-a"), false},
		{"other source", tcp(1, 65535, "sg-b"), tcp(8080, 8080, "sg-a"), false},
		{"other protocol", Rule{Protocol: "udp", FromPort: 1, ToPort: 65535, SourceGroupID: "sg-a"}, tcp(8080, 8080, "sg-a"), false},
		{"all protocols", Rule{Protocol: "-1", SourceGroupID: "sg-a"}, tcp(8080, 8080, "sg-a"), true},
		{"cidr", Rule{Protocol: "tcp", FromPort: 80, ToPort: 90, CIDR: "10.0.0.0/8"}, Rule{Protocol: "tcp", FromPort: 85, ToPort: 85, CIDR: "10.0.0.0/8"}, true},
		{"icmp is no range", Rule{Protocol: "icmp", FromPort: 0, ToPort: 8, CIDR: "0.0.0.0/0"}, Rule{Protocol: "icmp", FromPort: 3, ToPort: 4, CIDR: "0.0.0.0/0"}, false},
	} {
		if got := tc.have.Covers(tc.want); got != tc.covers {
			t.Errorf("%s: %+v covers %+v = %v, want %v", tc.name, tc.have, tc.want, got, tc.covers)
		}
	}
}
