package objects

import (
	"reflect"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSRule is an ELBv2 listener rule, found by ARN.
const AWSRule = "rule"

var ruleKind = rules{elbv2(AWSRule, reflect.TypeFor[ruleView](), waysOf("arn"))}

type rules struct{ elbv2Kind }

// ruleView is a listener rule's `aws` value.
type ruleView struct {
	fakeaws.ListenerRule `json:",inline"`
}

func (v *ruleView) resourceARN() string { return v.ARN }

// list indexes the rules of every listener whose rules could be read.
func (rules) list(r *stateReads, add addFunc) error {
	for _, lb := range r.loadBalancers() {
		for _, l := range lb.listeners {
			rs, _ := r.rules(l.ARN) // none when the listener was deleted meanwhile
			for _, rule := range rs {
				add(&ruleView{ListenerRule: rule}, elbv2Keys(rule.ARN, "")...)
			}
		}
	}
	return nil
}
