package scenario

import (
	"strings"
	"testing"
)

// TestParseAccountSeeds: aws.iamRoles and aws.eksCluster are decoded; a bad role name or a role
// listed twice names its field.
func TestParseAccountSeeds(t *testing.T) {
	with := func(roles string) string {
		return strings.Replace(base, "  warmupProfile: unlimited\n", "  warmupProfile: unlimited\n  eksCluster: true\n  iamRoles: "+roles+"\n", 1)
	}
	s, err := Parse("t.yaml", []byte(with("[KarpenterNodeRole-sim, other.role@x]")))
	if err != nil {
		t.Fatal(err)
	}
	if !s.AWS.EKSCluster || strings.Join(s.AWS.IAMRoles, " ") != "KarpenterNodeRole-sim other.role@x" {
		t.Fatalf("aws = %+v", s.AWS)
	}
	for _, tc := range []struct{ roles, want string }{
		{"[a/b]", `aws.iamRoles[0]: "a/b" is not an IAM role name`},
		{"['']", `aws.iamRoles[0]: "" is not an IAM role name`},
		{"[" + strings.Repeat("r", 65) + "]", "aws.iamRoles[0]"},
		{"[Node, node]", `aws.iamRoles[1]: "node" is listed twice`},
	} {
		_, err := Parse("t.yaml", []byte(with(tc.roles)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("iamRoles %s: err = %v, want %q", tc.roles, err, tc.want)
		}
	}
}
