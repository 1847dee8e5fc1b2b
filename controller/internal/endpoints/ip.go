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
		for _, port := range slicePorts(s, in.ServicePort) {
			res.addSliceEndpoints(in, s, port, seen)
		}
	}
	sortEndpoints(res.Endpoints)
	return res
}

// addSliceEndpoints adds the targets of one slice port. An IP:port seen before is one target, as
// AWS registers it once, but its identifier still enters the checkpoint each time, as the AWS Load
// Balancer Controller hashes every occurrence: an endpoint listed in two slices (which the endpoint
// slice controller allows while it moves endpoints) gives the same checkpoint in both controllers.
func (res *Result) addSliceEndpoints(in IPInput, s *discoveryv1.EndpointSlice, port int32, seen map[string]bool) {
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
		hashID := checkpoint.IPEndpointID(t.ID, port, pod.CreationTimestamp.Time)
		if seen[t.Key()] {
			res.repeatHashIDs = append(res.repeatHashIDs, hashID)
			continue
		}
		seen[t.Key()] = true
		res.Endpoints = append(res.Endpoints, Endpoint{Target: t, HashID: hashID, Pod: pod, Gated: gated, Ready: ready})
	}
}

// slicePorts returns the slice's ports for the Service port. They are matched by name alone, as the
// endpoint slice controller names slice ports after Service ports and as the AWS Load Balancer
// Controller matches them (a Service port without a name takes every port of the slice); a port
// without a number (all ports) is no target port.
func slicePorts(s *discoveryv1.EndpointSlice, sp corev1.ServicePort) []int32 {
	var out []int32
	for _, p := range s.Ports {
		if p.Port == nil || (sp.Name != "" && (p.Name == nil || *p.Name != sp.Name)) {
			continue
		}
		out = append(out, *p.Port)
	}
	return out
}

func sortEndpoints(eps []Endpoint) {
	sort.Slice(eps, func(i, j int) bool { return eps[i].Target.Key() < eps[j].Target.Key() })
}
