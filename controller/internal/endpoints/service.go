package endpoints

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/restartsim/restartsim/controller/internal/targets"
)

// ErrServicePortNotFound means the Service has no port matching the TargetGroupBinding's serviceRef.port.
var ErrServicePortNotFound = errors.New("service port not found")

// Endpoint is one desired target and what the reconcile needs to know about it.
type Endpoint struct {
	Target targets.Target
	// HashID is the identifier hashed into the checkpoint.
	HashID string
	// Pod backs an IP target (nil for instance targets). It may share memory with the informer
	// cache: read it, DeepCopy before changing it.
	Pod *corev1.Pod
	// Gated means the pod carries the TargetGroupBinding's readiness gate.
	Gated bool
	// Ready is the endpoint's readiness; a gated endpoint may be included while not ready.
	Ready bool
}

// Result is the resolved endpoint set.
type Result struct {
	Endpoints []Endpoint
	// Incomplete means some endpoints could not be resolved yet (pod not in the cache); the caller
	// must not save a checkpoint and should retry.
	Incomplete bool
	// Excluded are gated pods whose endpoints are not targets (e.g. a container restarting); their
	// gate must not stay True. Like Endpoint.Pod, they may share memory with the cache.
	Excluded []*corev1.Pod
	// repeatHashIDs are the checkpoint identifiers of IP:ports listed again (see addSliceEndpoints).
	repeatHashIDs []string
}

// Targets returns the endpoints' targets.
func (r Result) Targets() []targets.Target {
	out := make([]targets.Target, len(r.Endpoints))
	for i, e := range r.Endpoints {
		out[i] = e.Target
	}
	return out
}

// HashIDs returns the endpoints' checkpoint identifiers, one per listing of an endpoint.
func (r Result) HashIDs() []string {
	out := make([]string, len(r.Endpoints), len(r.Endpoints)+len(r.repeatHashIDs))
	for i, e := range r.Endpoints {
		out[i] = e.HashID
	}
	return append(out, r.repeatHashIDs...)
}

// ServicePort finds the Service port that ref names, by number or by name.
func ServicePort(svc *corev1.Service, ref intstr.IntOrString) (corev1.ServicePort, error) {
	for _, p := range svc.Spec.Ports {
		if (ref.Type == intstr.Int && p.Port == ref.IntVal) || (ref.Type == intstr.String && p.Name == ref.StrVal) {
			return p, nil
		}
	}
	return corev1.ServicePort{}, fmt.Errorf("%w: %s/%s has no port %s", ErrServicePortNotFound, svc.Namespace, svc.Name, ref.String())
}
