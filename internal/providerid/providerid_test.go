package providerid

import (
	"strings"
	"testing"
)

func TestInstanceID(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"aws:///us-west-2a/i-0123456789abcdef0", "i-0123456789abcdef0"},
		{"aws://us-west-2a/i-0abc", "i-0abc"}, // the legacy form without the empty host
		{"aws:///us-west-2a/", ""},
		{"aws:///us-west-2a/fargate-ip-10-0-0-1", ""}, // Fargate nodes are not instances
		{"kind://docker/kind/kind-worker", ""},
		{"i-0abc", ""},
		{"", ""},
	} {
		if got := InstanceID(tc.in); got != tc.want {
			t.Errorf("InstanceID(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzInstanceID(f *testing.F) {
	f.Add("us-west-2a", "i-0123456789abcdef0")
	f.Add("", "i-")
	f.Add("eu-central-1b", "fargate-ip")
	f.Fuzz(func(t *testing.T, zone, id string) {
		got := InstanceID(Format(zone, id))
		if strings.Contains(id, "/") || !strings.HasPrefix(id, "i-") {
			if got != "" && !strings.HasPrefix(got, "i-") {
				t.Fatalf("InstanceID(Format(%q, %q)) = %q: not an instance ID", zone, id, got)
			}
			return
		}
		if got != id {
			t.Fatalf("InstanceID(Format(%q, %q)) = %q, want the ID back", zone, id, got)
		}
	})
}
