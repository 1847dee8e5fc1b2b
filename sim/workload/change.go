package workload

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// Change kinds.
const (
	ChangeScale            = "scale"
	ChangeRotatePodIPs     = "rotate-pod-ips"
	ChangeAddTGB           = "add-tgb"
	ChangeRemoveTGB        = "remove-tgb"
	ChangeContainerRestart = "container-restart"
)

// FleetChange is what a mutation of the fleet changed that a controller must apply in AWS: the
// workload's side of a change, which the measurement tracks until AWS shows it.
type FleetChange struct {
	// ID is unique within the fleet: <kind>-<sequence>.
	ID   string
	Kind string
	TGB  types.NamespacedName
	// TargetGroupARN is the TGB's target group.
	TargetGroupARN string
	// Register and Deregister are the net target changes. A container restart has none: its target is
	// deregistered and registered again, which leaves the set unchanged.
	Register, Deregister []tgbexpect.Target
	// Pods are the pods whose readiness gate for this TGB must (again) turn True before the change is
	// complete: new gated pods, or the restarted pod of a gated TGB.
	Pods []types.NamespacedName
	// Ingress is the Ingress an Ingress-side change made (TGB is then zero), and Expect what AWS must
	// end up showing for it to be applied.
	Ingress types.NamespacedName
	Expect  []Expectation
}

// ErrUnknownTGB is returned for a TGB or pod the fleet does not hold.
var ErrUnknownTGB = errors.New("workload: unknown TargetGroupBinding")

func (f *FleetPlan) newChange(live *liveState, kind string, t *TGBPlan) FleetChange {
	f.mu.Lock()
	live.changes++
	id := fmt.Sprintf("%s-%04d", kind, live.changes)
	f.mu.Unlock()
	return FleetChange{ID: id, Kind: kind, TGB: t.Key(), TargetGroupARN: t.TargetGroupARN}
}

// podTargets are the ip targets of pods (none for instance TGBs, whose targets are nodes).
func (f *FleetPlan) podTargets(t *TGBPlan, pods []PodPlan) []tgbexpect.Target {
	if t.TargetType != v1beta1.TargetTypeIP {
		return nil
	}
	out := make([]tgbexpect.Target, 0, len(pods))
	for _, p := range pods {
		out = append(out, tgbexpect.Target{ID: p.IP, Port: f.Spec.Port})
	}
	return out
}

// allTargets are every target of t: its pods (ip) or every Ready node on its NodePort (instance; the
// fleet's TGBs carry no nodeSelector).
func (f *FleetPlan) allTargets(t *TGBPlan) []tgbexpect.Target {
	if t.TargetType == v1beta1.TargetTypeIP {
		return f.podTargets(t, t.Pods)
	}
	f.nodesMu.RLock()
	defer f.nodesMu.RUnlock()
	out := make([]tgbexpect.Target, 0, len(f.Nodes))
	for _, n := range f.Nodes {
		if !n.NotReady {
			out = append(out, tgbexpect.Target{ID: n.InstanceID, Port: t.NodePort})
		}
	}
	return out
}

func gatedPods(t *TGBPlan, pods []PodPlan) []types.NamespacedName {
	if !t.ReadinessGate {
		return nil
	}
	out := make([]types.NamespacedName, 0, len(pods))
	for _, p := range pods {
		out = append(out, types.NamespacedName{Namespace: t.Namespace, Name: p.Name})
	}
	return out
}
