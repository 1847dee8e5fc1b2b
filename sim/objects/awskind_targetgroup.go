package objects

import (
	"reflect"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSTargetGroup is an ELBv2 target group, found by ARN or name.
const AWSTargetGroup = "targetGroup"

var targetGroupKind = targetGroups{elbv2(AWSTargetGroup, reflect.TypeFor[targetGroupView](), byArnOrName)}

type targetGroups struct{ elbv2Kind }

// targetGroupView is a target group's `aws` value.
type targetGroupView struct {
	fakeaws.TargetGroup `json:",inline"`
	// Targets are the registered targets with their health at the snapshot.
	Targets []fakeaws.TargetHealth `json:"targets"`
}

func (v *targetGroupView) resourceARN() string { return v.ARN }

func (targetGroups) list(r *stateReads, add addFunc) error {
	for _, tg := range r.src.TargetGroups() {
		if targets, err := r.src.Targets(tg.ARN); err == nil { // else deleted meanwhile
			add(&targetGroupView{TargetGroup: tg, Targets: targets}, elbv2Keys(tg.ARN, tg.Name)...)
		}
	}
	return nil
}
