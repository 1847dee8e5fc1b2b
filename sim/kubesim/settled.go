package kubesim

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
)

// readyLags tells whether the simulated kubelet still has to write the pod's Ready condition.
func readyLags(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp == nil && inEndpoints(pod) && !readyUpToDate(pod)
}

// endpointsUpToDate tells whether a Service's slices (the simulator's, as its informer holds them)
// already list what the simulated endpoint controller derives from its pods. A Service without a
// slice has nothing to sync.
func endpointsUpToDate(service string, slices []*discoveryv1.EndpointSlice, pods []*corev1.Pod) bool {
	if len(slices) == 0 {
		return true
	}
	named := func(name string) *discoveryv1.EndpointSlice {
		for _, e := range slices {
			if e.Name == name {
				return e
			}
		}
		return nil
	}
	slice := named(SliceName(service))
	if slice == nil {
		slice = slices[0]
	}
	want := Endpoints(pods)
	var dup *discoveryv1.EndpointSlice // a second slice (DuplicateEndpoint) lists want's first endpoint
	if name := slice.Annotations[DuplicateSliceAnnotation]; name != "" {
		dup = named(name)
	}
	return endpointsEqual(slice.Endpoints, want) && (dup == nil || endpointsEqual(dup.Endpoints, DuplicateEndpoints(want)))
}

// Lagging counts what, in a snapshot of the simulator's own pods and slices, the simulated kubelet
// and endpoint controller have yet to write: pods whose Ready condition does not follow from their
// other conditions, and Services whose slices do not list their pods' endpoints as derived.
//
// Such a snapshot mixes a pod's new conditions with its old endpoints (a readiness gate turned True
// while its endpoint is still not ready), so desired state derived from it is neither the old nor
// the new one: a check that judges the controller must wait until nothing lags.
func (s *Simulator) Lagging(pods []*corev1.Pod, slices []*discoveryv1.EndpointSlice) int {
	n := 0
	for _, p := range pods {
		if readyLags(p) {
			n++
		}
	}
	if s.opts.ClusterEndpointSlices {
		return n // the cluster's own controller writes the slices, by rules the simulator does not know
	}
	podsOf := map[types.NamespacedName][]*corev1.Pod{}
	for _, p := range pods {
		podsOf[serviceOf(p)] = append(podsOf[serviceOf(p)], p)
	}
	slicesOf := map[types.NamespacedName][]*discoveryv1.EndpointSlice{}
	for _, e := range slices {
		slicesOf[sliceService(e)] = append(slicesOf[sliceService(e)], e)
	}
	for svc, ss := range slicesOf {
		if !endpointsUpToDate(svc.Name, ss, podsOf[svc]) {
			n++
		}
	}
	return n
}

// typed converts an indexer's objects.
func typed[T any](objs []any) []T {
	out := make([]T, len(objs))
	for i, o := range objs {
		out[i] = o.(T)
	}
	return out
}
