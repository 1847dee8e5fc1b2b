package objects

import (
	"reflect"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSLoadBalancer is an ELBv2 load balancer, found by ARN or name.
const AWSLoadBalancer = "loadBalancer"

var loadBalancerKind = loadBalancers{elbv2(AWSLoadBalancer, reflect.TypeFor[loadBalancerView](), byArnOrName)}

type loadBalancers struct{ elbv2Kind }

// loadBalancerView is a load balancer's `aws` value.
type loadBalancerView struct {
	fakeaws.LoadBalancer `json:",inline"`
	// State is "provisioning" or "active" at the snapshot.
	State     string             `json:"state"`
	Listeners []fakeaws.Listener `json:"listeners"`
}

func (v *loadBalancerView) resourceARN() string { return v.ARN }

func (loadBalancers) list(r *stateReads, add addFunc) error {
	for _, lb := range r.loadBalancers() {
		view := &loadBalancerView{LoadBalancer: lb.LoadBalancer, State: lb.StateAt(r.now), Listeners: lb.listeners}
		add(view, elbv2Keys(lb.ARN, lb.Name)...)
	}
	return nil
}
