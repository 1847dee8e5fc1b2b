package objects

import (
	"regexp"
	"strings"
	"testing"
)

// awsNameRule is ELBv2's rule for target group and load balancer names.
var awsNameRule = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?$`)

func TestAWSNameFollowsELBRules(t *testing.T) {
	for _, prefix := range []string{"", "tg", "tg-", "TG9", strings.Repeat("a", 40), strings.Repeat("ab-", 10), "internal", "internalx"} {
		for _, index := range []int{0, 1, 35, 36, 99999, MaxCount - 1} {
			name, err := AWSName(prefix, "run-1", "targets", index)
			if prefix == "internal" {
				if err == nil {
					t.Errorf("AWSName(%q) = %q, want an error (AWS reserves internal-)", prefix, name)
				}
				continue
			}
			if err != nil {
				t.Fatalf("AWSName(%q, %d): %v", prefix, index, err)
			}
			if !awsNameRule.MatchString(name) || strings.HasPrefix(strings.ToLower(name), "internal-") {
				t.Errorf("AWSName(%q, %d) = %q breaks AWS's name rules", prefix, index, name)
			}
		}
	}
}

func TestAWSNameIsDeterministicAndDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, run := range []string{"run-1", "run-2"} {
		for _, group := range []string{"a", "b"} {
			for i := range 2000 {
				name, err := AWSName(strings.Repeat("x", 40), run, group, i)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := AWSName(strings.Repeat("x", 40), run, group, i)
				if again != name {
					t.Fatalf("AWSName is not deterministic: %q then %q", name, again)
				}
				who := run + "/" + group
				if prev, ok := seen[name]; ok {
					t.Fatalf("%s and %s/%d are both named %q", prev, who, i, name)
				}
				seen[name] = who
			}
		}
	}
}

func TestAWSNameRefusesBadPrefixes(t *testing.T) {
	for _, prefix := range []string{"tg_1", "-tg", "tg.1", "tg/1", "Internal-x"} {
		if name, err := AWSName(prefix, "r", "g", 0); err == nil {
			t.Errorf("AWSName(%q) = %q, want an error", prefix, name)
		}
	}
}
