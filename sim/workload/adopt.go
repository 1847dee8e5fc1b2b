package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// Adopt makes f live on objects that already exist: those created by the Fleet from, planned from the
// same Spec and seed, whose API server state and AWS resources were copied (the sim snapshots etcd and
// fakeaws after one Create and runs each strategy on its own copy). Adopt writes nothing; it takes the
// target group ARNs, NodePorts and security group IDs that from's Create learnt. Like Create, it may be
// called once, and the mutations then act through opts.
func (f *Fleet) Adopt(ctx context.Context, from *Fleet, opts Options) error {
	opts.setDefaults()
	if err := opts.validate(); err != nil {
		return fmt.Errorf("workload options: %w", err)
	}
	if from == f {
		return errors.New("workload: a fleet cannot adopt itself")
	}
	from.mu.Lock()
	src := from.live
	from.mu.Unlock()
	if src == nil {
		return fmt.Errorf("workload: adopting: %w", ErrNotCreated)
	}
	if len(from.TGBs) != len(f.TGBs) || len(from.Nodes) != len(f.Nodes) || len(from.SecurityGroupNames) != len(f.SecurityGroupNames) {
		return fmt.Errorf("workload: adopting a different fleet: %d TGBs, %d nodes vs %d, %d", len(from.TGBs), len(from.Nodes), len(f.TGBs), len(f.Nodes))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.live != nil {
		return errors.New("workload: fleet already live")
	}
	for i, t := range f.TGBs {
		s := from.TGBs[i]
		if s.Key() != t.Key() || !slices.Equal(s.Pods, t.Pods) {
			return fmt.Errorf("workload: adopting a different fleet: TGB %d is %s with pods %v, planned %s with %v", i, s.Key(), s.Pods, t.Key(), t.Pods)
		}
		t.TargetGroupARN, t.NodePort = s.TargetGroupARN, s.NodePort
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f.live = &liveState{opts: opts, sgIDs: append([]string(nil), src.sgIDs...), lbSG: src.lbSG, bg: bg, cancel: cancel}
	return nil
}
