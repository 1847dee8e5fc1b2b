package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Adopt makes f live on objects that already exist: those created by the FleetPlan from, planned from the
// same Spec and seed, whose API server state and AWS resources were copied (the sim snapshots etcd and
// fakeaws after one Create and runs each strategy on its own copy). Adopt writes nothing; it takes the
// target group ARNs, NodePorts and security group IDs that from's Create learnt. Like Create, it may be
// called once, and the mutations then act through opts.
func (f *FleetPlan) Adopt(ctx context.Context, from *FleetPlan, opts Options) error {
	opts.setDefaults()
	if err := opts.validate(); err != nil {
		return fmt.Errorf("workload options: %w", err)
	}
	if from == f {
		return errors.New("workload: a fleet cannot adopt itself")
	}
	from.mu.Lock()
	src := from.live
	fromNodes := slices.Clone(from.Nodes)
	from.mu.Unlock()
	if src == nil {
		return fmt.Errorf("workload: adopting: %w", ErrNotCreated)
	}
	if len(from.TGBs) != len(f.TGBs) || len(from.SecurityGroupNames) != len(f.SecurityGroupNames) {
		return fmt.Errorf("workload: adopting a different fleet: %d TGBs, %d security groups vs %d, %d",
			len(from.TGBs), len(from.SecurityGroupNames), len(f.TGBs), len(f.SecurityGroupNames))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.live != nil {
		return errors.New("workload: fleet already live")
	}
	// The nodes must be as Create made them: a node that joined or turned NotReady since (JoinNode,
	// NodeNotReady) is not in this fleet's plan.
	if !slices.Equal(fromNodes, f.Nodes) {
		i := 0
		for i < min(len(fromNodes), len(f.Nodes)) && fromNodes[i] == f.Nodes[i] {
			i++
		}
		return fmt.Errorf("workload: adopting a different fleet: %d nodes, planned %d, first differing at %d (node mutations after Create cannot be adopted)",
			len(fromNodes), len(f.Nodes), i)
	}
	for i, t := range f.TGBs {
		s := from.TGBs[i]
		if s.Key() != t.Key() || !slices.Equal(s.Pods, t.Pods) {
			return fmt.Errorf("workload: adopting a different fleet: TGB %d is %s with pods %v, planned %s with %v", i, s.Key(), s.Pods, t.Key(), t.Pods)
		}
		t.TargetGroupARN, t.NodePort = s.TargetGroupARN, s.NodePort
	}
	if err := f.sameIngressSide(from); err != nil {
		return err
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f.live = &liveState{opts: opts, sgIDs: append([]string(nil), src.sgIDs...), lbSG: src.lbSG, bg: bg, cancel: cancel}
	return nil
}

// sameIngressSide checks that from's Ingress side is the one f planned: the same Ingresses and
// Services with the same pods. It learns nothing from AWS (its load balancers are the controllers'),
// so there is nothing to take over. from.mu is held by no one else: Adopt runs before from's
// mutations or after them, never during.
func (f *FleetPlan) sameIngressSide(from *FleetPlan) error {
	from.mu.Lock()
	defer from.mu.Unlock()
	if len(from.IngressPlans) != len(f.IngressPlans) {
		return fmt.Errorf("workload: adopting a different fleet: %d Ingresses, planned %d", len(from.IngressPlans), len(f.IngressPlans))
	}
	for i, ing := range f.IngressPlans {
		s := from.IngressPlans[i]
		if s.Key() != ing.Key() || !slices.Equal(s.Paths, ing.Paths) || s.HealthCheckPath != ing.HealthCheckPath {
			return fmt.Errorf("workload: adopting a different fleet: Ingress %d is %s with paths %v, planned %s with %v (Ingress changes after Create cannot be adopted)",
				i, s.Key(), s.Paths, ing.Key(), ing.Paths)
		}
	}
	have, want := from.ingressSideServices(), f.ingressSideServices()
	if len(have) != len(want) {
		return fmt.Errorf("workload: adopting a different fleet: %d Ingress-side Services, planned %d", len(have), len(want))
	}
	for i, s := range want {
		o := have[i]
		if o.Key() != s.Key() || o.Port != s.Port || o.TargetPort != s.TargetPort || !slices.Equal(o.Pods, s.Pods) {
			return fmt.Errorf("workload: adopting a different fleet: Service %d is %s, planned %s", i, o.Key(), s.Key())
		}
	}
	return nil
}
