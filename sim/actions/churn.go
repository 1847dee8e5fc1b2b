package actions

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

func (e *Executor) record(ch workload.FleetChange, at time.Time) {
	mc := measure.Change{ID: ch.ID, Kind: ch.Kind, TGB: ch.TGB.String(), TargetGroupARN: ch.TargetGroupARN, At: e.sec(at),
		Register: slices.Clone(ch.Register), Deregister: slices.Clone(ch.Deregister)}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(mc.Register)+len(mc.Deregister) > 0 {
		e.changes = append(e.changes, mc)
	}
	for _, p := range ch.Pods {
		e.gated = append(e.gated, gatedPod{pod: p.String(), at: at})
	}
	if ch.Kind == "remove-tgb" || len(mc.Deregister) > 0 && len(mc.Register) == 0 && ch.Kind == churnKindRemove {
		e.removed.Add(ch.TargetGroupARN, ch.TGB.String())
	}
}

const churnKindRemove = "remove-tgb"

func ipTGB(t workload.TGBInfo) bool { return t.TargetType == v1beta1.TargetTypeIP }

func (e *Executor) churn(ctx context.Context, index int, st scenario.Step) error {
	kind := st.Kind
	switch kind {
	case scenario.ChurnReplaceNode:
		return e.replaceNodes(ctx, st)
	case scenario.ChurnDeleteNodes:
		return e.deleteNodes(ctx, st)
	case scenario.ChurnPatch, scenario.ChurnCreate, scenario.ChurnDelete:
		return e.objectChurn(ctx, index, st)
	}
	if wk, ok := scenario.IngressChurnKinds[kind]; ok {
		return e.ingressChurn(ctx, st, wk)
	}
	var filter func(workload.TGBInfo) bool
	switch kind {
	case scenario.ChurnAddTGB, scenario.ChurnRemoveTGB:
	case scenario.ChurnRecreateService:
		filter = func(t workload.TGBInfo) bool { return ipTGB(t) && t.Pods > 0 }
	case scenario.ChurnStaleGate:
		filter = func(t workload.TGBInfo) bool { return ipTGB(t) && t.ReadinessGate && t.Pods > 0 }
	default:
		filter = ipTGB
	}
	var keys []types.NamespacedName
	if kind == scenario.ChurnAddTGB {
		keys = make([]types.NamespacedName, st.Services)
	} else {
		keys = e.fleet.ChooseTGBs(e.rng, st.Services, filter)
	}
	e.event("churn", fmt.Sprintf("%s × %d", kind, len(keys)), e.clock.Now(), nil)
	// Draw every random choice first, in order, then apply the mutations concurrently so that a
	// churn step's changes land together (the mutations touch distinct TGBs).
	type job struct {
		key   types.NamespacedName
		kind  string
		delta int
	}
	jobs := make([]job, len(keys))
	for i, key := range keys {
		j := job{key: key, kind: kind}
		if j.kind == scenario.ChurnMixed {
			j.kind = []string{scenario.ChurnScale, scenario.ChurnRotate}[e.rng.IntN(2)]
		}
		if j.kind == scenario.ChurnScale {
			j.delta = 1 + e.rng.IntN(2)
			if info, ok := e.fleet.TGB(key); ok && info.Pods > 1 && e.rng.IntN(2) == 0 {
				j.delta = -min(j.delta, info.Pods-1)
			}
		}
		jobs[i] = j
	}
	return parallel(len(jobs), mutationWorkers, func(i int) error {
		j := jobs[i]
		at := e.clock.Now()
		var ch workload.FleetChange
		var err error
		switch j.kind {
		case scenario.ChurnScale:
			ch, err = e.fleet.ScaleService(ctx, j.key, j.delta)
		case scenario.ChurnRotate:
			ch, err = e.fleet.RotatePodIPs(ctx, j.key, 1)
		case scenario.ChurnAddTGB:
			ch, err = e.fleet.AddTGB(ctx)
		case scenario.ChurnRecreateService:
			ch, err = e.fleet.RecreateService(ctx, j.key, e.clock.Wall(st.Duration.Duration))
		case scenario.ChurnStaleGate:
			ch, err = e.fleet.StaleGate(ctx, j.key)
		case scenario.ChurnRemoveTGB:
			ch, err = e.fleet.RemoveTGB(ctx, j.key)
			if err == nil {
				ch.Kind = churnKindRemove
			}
		}
		if err != nil {
			return fmt.Errorf("churn %s %s: %w", j.kind, j.key, err)
		}
		e.record(ch, at)
		return nil
	})
}

// replaceNodes replaces st.Count nodes one after another (each replaces the oldest node still Ready,
// so they cannot run concurrently) and records every instance TGB's register and deregister
// changes, timed from the start of the node's replacement.
func (e *Executor) replaceNodes(ctx context.Context, st scenario.Step) error {
	e.event("churn", fmt.Sprintf("%s × %d", st.Kind, st.Count), e.clock.Now(), nil)
	for range st.Count {
		at := e.clock.Now()
		r, err := e.fleet.ReplaceNode(ctx)
		for _, ch := range r.Changes() {
			e.record(ch, at)
		}
		if err != nil {
			return fmt.Errorf("churn %s: %w", st.Kind, err)
		}
		e.log.V(1).Info("node replaced", "joined", r.Joined.Node.Name, "notReady", r.Replaced.Node.Name, "changes", len(r.Changes()))
	}
	return nil
}

// mutationWorkers bounds concurrent mutations of one step.
const mutationWorkers = 16

// parallel runs fn(0..n-1) on up to workers goroutines and returns the first error.
func parallel(n, workers int, fn func(i int) error) error {
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan int)
	for w := 0; w < min(n, workers); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := fn(i); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return firstErr
}

func (e *Executor) containerRestart(ctx context.Context, st scenario.Step) error {
	// Prefer pods of gated TGBs; the filters also note each candidate's IP and target group.
	infos := map[types.NamespacedName]workload.PodInfo{}
	pick := func(gated bool) func(workload.PodInfo) bool {
		return func(p workload.PodInfo) bool {
			ok := p.TGB.TargetType == v1beta1.TargetTypeIP && p.TGB.ReadinessGate == gated
			if ok {
				infos[p.Key] = p
			}
			return ok
		}
	}
	pods := e.fleet.ChoosePods(e.rng, st.Pods, pick(true))
	if len(pods) < st.Pods {
		pods = append(pods, e.fleet.ChoosePods(e.rng, st.Pods-len(pods), pick(false))...)
	}
	e.event("containerRestart", fmt.Sprintf("%d pods", len(pods)), e.clock.Now(), nil)
	defer func() {
		e.mu.Lock()
		e.busyUntil = e.clock.Now().Add(e.clock.Wall(e.sc.Fleet.ContainerRestartDelay.Duration))
		e.mu.Unlock()
	}()
	port := e.fleet.Spec.Port
	return parallel(len(pods), mutationWorkers, func(i int) error {
		at := e.clock.Now()
		ch, err := e.fleet.ContainerRestart(ctx, pods[i])
		if err != nil {
			return fmt.Errorf("container restart %s: %w", pods[i], err)
		}
		// The same pod object keeps its IP: AWS must deregister its target while the container is
		// down and register it again when it is back.
		if info, ok := infos[pods[i]]; ok && len(ch.Register)+len(ch.Deregister) == 0 {
			t := tgbexpect.Target{ID: info.IP, Port: port}
			ch.Register = []tgbexpect.Target{t}
			// A pod whose target is not in AWS yet (e.g. just scaled up) has nothing to deregister.
			if e.registered(info.TGB.TargetGroupARN, t) {
				ch.Deregister = []tgbexpect.Target{t}
			}
			if ch.TargetGroupARN == "" {
				ch.TargetGroupARN = info.TGB.TargetGroupARN
			}
		}
		e.record(ch, at)
		return nil
	})
}

// registered reports whether AWS holds the target in the group now (draining ones excluded).
func (e *Executor) registered(arn string, t tgbexpect.Target) bool {
	ths, err := e.backend.Targets(arn)
	if err != nil {
		return true
	}
	for _, th := range ths {
		if th.Target.ID == t.ID && th.Target.Port == t.Port && th.State != fakeaws.HealthDraining {
			return true
		}
	}
	return false
}

// ingressChurn changes one input of st.Services Ingresses' models each (the Ingresses the change
// applies to), drawn first and applied together like the other churn kinds.
func (e *Executor) ingressChurn(ctx context.Context, st scenario.Step, kind string) error {
	keys := e.fleet.ChooseIngresses(e.rng, st.Services, func(i workload.IngressInfo) bool { return workload.IngressChangeApplies(kind, i) })
	e.event("churn", fmt.Sprintf("%s × %d", st.Kind, len(keys)), e.clock.Now(), nil)
	return parallel(len(keys), mutationWorkers, func(i int) error {
		at := e.clock.Now()
		ch, err := e.fleet.ChangeIngress(ctx, kind, keys[i])
		if err != nil {
			return fmt.Errorf("churn %s %s: %w", st.Kind, keys[i], err)
		}
		e.recordIngress(ch, at)
		return nil
	})
}

// recordIngress records an Ingress-side change, timed by what AWS is seen to show; without a
// watch for that it is not measured.
func (e *Executor) recordIngress(ch workload.FleetChange, at time.Time) {
	if e.ingresses == nil || len(ch.Expect) == 0 {
		return
	}
	e.ingresses.Track(ch.ID, ch.Ingress, ch.Expect)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.changes = append(e.changes, measure.Change{ID: ch.ID, Kind: ch.Kind, Ingress: ch.Ingress.String(), At: e.sec(at)})
}
