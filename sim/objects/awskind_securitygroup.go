package objects

import (
	"reflect"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSSecurityGroup is an EC2 security group, found by ID (sg-...) or name.
const AWSSecurityGroup = "securityGroup"

var securityGroupKind = securityGroups{kindInfo{kind: AWSSecurityGroup, viewType: reflect.TypeFor[securityGroupView](), ways: waysOf("id", "name")}}

type securityGroups struct{ kindInfo }

// securityGroupView is a security group's `aws` value.
type securityGroupView struct {
	fakeaws.SecurityGroup `json:",inline"`
}

// callName is the group's ID; a name is looked up in s.
func (securityGroups) callName(s *Snapshot, k resourceKey) string {
	if k.by == "id" {
		return fakeaws.SecurityGroupResource(k.value)
	}
	if e := s.lookup(AWSSecurityGroup, k); e != nil {
		return fakeaws.SecurityGroupResource(e.view.(*securityGroupView).ID)
	}
	return ""
}

func (securityGroups) list(r *stateReads, add addFunc) error {
	for _, sg := range r.src.SecurityGroups() {
		add(&securityGroupView{SecurityGroup: sg}, byKey("id", sg.ID), byKey("name", sg.Name))
	}
	return nil
}
