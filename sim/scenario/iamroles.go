package scenario

import (
	"fmt"
	"regexp"
	"strings"
)

// iamRoleName is IAM's role name: 1 to 64 of letters, digits and +=,.@_-.
var iamRoleName = regexp.MustCompile(`^[\w+=,.@-]{1,64}$`)

func (v *validator) validateIAMRoles(roles []string) {
	seen := map[string]bool{}
	for i, r := range roles {
		switch {
		case !iamRoleName.MatchString(r):
			v.addf(fmt.Sprintf("aws.iamRoles[%d]", i), "%q is not an IAM role name (1 to 64 of letters, digits and +=,.@_-)", r)
		case seen[strings.ToLower(r)]:
			v.addf(fmt.Sprintf("aws.iamRoles[%d]", i), "%q is listed twice (IAM role names are case-insensitive)", r)
		}
		seen[strings.ToLower(r)] = true
	}
}
