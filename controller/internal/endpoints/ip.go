package endpoints

import (
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/readinessgate"
	"github.com/restartsim/restartsim/controller/internal/targets"
)

// IPInput is what IP resolution reads.
type IPInput struct {
	ServicePort corev1.ServicePort
	Slices      []discoveryv1.EndpointSlice
	// AddressType is IPv4 or IPv6 (the TargetGroupBinding's ipAddressType).
	AddressType discoveryv1.AddressType
	// Pod looks a pod up by name in the Service's namespace.
	Pod func(name string) (*corev1.Pod, bool)
	// Gate is the TargetGroupBinding's readiness gate condition type.
	Gate corev1.PodConditionType
	// NoGateHoldBack drops the readiness-gate hold-back rule (a mutant; normally false).
	NoGateHoldBack bool
}

// ResolveIP returns the pod IP targets: ready endpoints, plus not-ready endpoints whose pod carries
// the gate and has all containers ready (the pod is held back only by the gate).
func ResolveIP(in IPInput) Result {
	var res Result
	seen := map[string]bool{}
	for i := range in.Slices {
		s := &in.Slices[i]
		if s.AddressType != in.AddressType {
			continue
		}
		port, ok := slicePort(s, in.ServicePort)
		if !ok {
			continue
		}
		for _, ep := range s.Endpoints {
			if len(ep.Addresses) == 0 || ep.TargetRef == nil || ep.TargetRef.Kind != "Pod" {
				continue
			}
			ready := ep.Conditions.Ready == nil || *ep.Conditions.Ready
			pod, found := in.Pod(ep.TargetRef.Name)
			if !found {
				if ready {
					res.Incomplete = true
				}
				continue
			}
			gated := readinessgate.HasGate(pod, in.Gate)
			if !ready && (in.NoGateHoldBack || !gated || !readinessgate.ContainersReady(pod) || pod.DeletionTimestamp != nil) {
				if gated {
					res.Excluded = append(res.Excluded, pod)
				}
				continue
			}
			t := targets.Target{ID: ep.Addresses[0], Port: port}
			if seen[t.Key()] {
				continue
			}
			seen[t.Key()] = true
			res.Endpoints = append(res.Endpoints, Endpoint{
				Target: t,
				HashID: checkpoint.IPEndpointID(t.ID, port, pod.CreationTimestamp.Time),
				Pod:    pod, Gated: gated, Ready: ready,
			})
		}
	}
	sortEndpoints(res.Endpoints)
	return res
}

// slicePort finds the slice's port for the Service port (matched by name, as the endpoint slice
// controller names slice ports after Service ports).
func slicePort(s *discoveryv1.EndpointSlice, sp corev1.ServicePort) (int32, bool) {
	for _, p := range s.Ports {
		name := ""
		if p.Name != nil {
			name = *p.Name
		}
		proto := corev1.ProtocolTCP
		if p.Protocol != nil {
			proto = *p.Protocol
		}
		spProto := sp.Protocol
		if spProto == "" {
			spProto = corev1.ProtocolTCP
		}
		if name == sp.Name && proto == spProto && p.Port != nil {
			return *p.Port, true
		}
	}
	return 0, false
}

func sortEndpoints(eps []Endpoint) {
	sort.Slice(eps, func(i, j int) bool { return eps[i].Target.Key() < eps[j].Target.Key() })
}
