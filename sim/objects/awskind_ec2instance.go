package objects

import (
	"reflect"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSEC2Instance is an EC2 instance, found by ID or by its private IPv4 address as name (a Pod's
// status.hostIP).
const AWSEC2Instance = "ec2Instance"

var ec2InstanceKind = ec2Instances{kindInfo{kind: AWSEC2Instance, viewType: reflect.TypeFor[ec2InstanceView](), ways: waysOf("id", "name")}}

type ec2Instances struct{ kindInfo }

// ec2InstanceView is an instance's `aws` value.
type ec2InstanceView struct {
	fakeaws.Instance `json:",inline"`
}

// callName is "": the call log does not name the instance a launch made.
func (ec2Instances) callName(*Snapshot, resourceKey) string { return "" }
func (ec2Instances) unnamedByCalls()                        {}

func (ec2Instances) list(r *stateReads, add addFunc) error {
	for _, in := range r.src.Instances() {
		add(&ec2InstanceView{Instance: in}, byKey("id", in.ID), byKey("name", in.PrivateIP))
	}
	return nil
}
