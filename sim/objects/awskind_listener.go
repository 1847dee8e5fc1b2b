package objects

import (
	"reflect"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSListener is an ELBv2 listener, found by ARN.
const AWSListener = "listener"

var listenerKind = listeners{elbv2(AWSListener, reflect.TypeFor[listenerView](), waysOf("arn"))}

type listeners struct{ elbv2Kind }

// listenerView is a listener's `aws` value.
type listenerView struct {
	fakeaws.Listener `json:",inline"`
	// Rules are the listener's rules by priority, the default rule last.
	Rules []fakeaws.ListenerRule `json:"rules"`
}

func (v *listenerView) resourceARN() string { return v.ARN }

// list indexes the listeners of every load balancer whose rules could be read.
func (listeners) list(r *stateReads, add addFunc) error {
	for _, lb := range r.loadBalancers() {
		for _, l := range lb.listeners {
			if rules, ok := r.rules(l.ARN); ok {
				add(&listenerView{Listener: l, Rules: rules}, elbv2Keys(l.ARN, "")...)
			}
		}
	}
	return nil
}
