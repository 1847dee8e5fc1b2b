package ec2

// SecurityGroupOf is the security group a successful call's result names when its request may not: the
// group a CreateSecurityGroup made, the group a DeleteSecurityGroup by name deleted ("" for other results).
func SecurityGroupOf(result any) string {
	switch r := result.(type) {
	case *createSecurityGroupResponse:
		return r.GroupID
	case *deleteSecurityGroupResponse:
		return r.GroupID
	}
	return ""
}
