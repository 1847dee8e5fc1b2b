package workload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// Ingress-side change kinds: each changes one input of an Ingress's load balancer model.
const (
	// ChangeIngressRule adds a path to the Ingress's rule, routed to one of its backends.
	ChangeIngressRule = "ingress-rule"
	// ChangeBackendPort changes a backend Service's port number and the Ingress's references to it.
	ChangeBackendPort = "backend-port"
	// ChangeBackendTargetPort changes a backend Service's target port (and its EndpointSlice's port).
	ChangeBackendTargetPort = "backend-target-port"
	// ChangeSecretContent rotates the client secret in an OIDC Ingress's client Secret.
	ChangeSecretContent = "secret-content"
	// ChangeIngressAnnotation changes the Ingress's healthcheck-path annotation.
	ChangeIngressAnnotation = "ingress-annotation"
)

// What an Expectation checks.
const (
	// ExpectForward: a listener rule of the group's ALB matching Host and Path forwards to a target
	// group that holds exactly Targets and is bound to Service port ServicePort.
	ExpectForward = "forward"
	// ExpectOIDCClientSecret: the listener rule of the group's ALB matching Host and Path
	// authenticates with OIDC (authenticate-oidc action) with ClientSecret Value.
	ExpectOIDCClientSecret = "oidc-client-secret"
	// ExpectHealthCheckPath: the target group the Ingress's rules forward to for Service port
	// ServicePort has HealthCheckPath Value.
	ExpectHealthCheckPath = "health-check-path"
)

// Expectation is one fact AWS must show once an Ingress-side change is applied: plain data, which
// the harness checks against AWS's state to see when the change was applied.
type Expectation struct {
	// Check is ExpectForward, ExpectOIDCClientSecret or ExpectHealthCheckPath.
	Check string
	// Group is the IngressGroup (group.name) whose ALB must show it.
	Group   string
	Ingress types.NamespacedName
	// Host and Path select the listener rule (ExpectForward, ExpectOIDCClientSecret).
	Host, Path string
	// Service and ServicePort name the backend (ExpectForward, ExpectHealthCheckPath).
	Service     types.NamespacedName
	ServicePort int32
	// Targets are the forward target group's targets (ExpectForward).
	Targets []tgbexpect.Target
	// Value is the expected ClientSecret or HealthCheckPath.
	Value string
}

// ErrUnknownIngress is returned for an Ingress the fleet does not hold, or one a change does not fit
// (secret-content on an Ingress without OIDC).
var ErrUnknownIngress = errors.New("workload: unknown Ingress")

// beginIngress locks the Ingress named key against other mutations.
func (f *FleetPlan) beginIngress(key types.NamespacedName) (*IngressPlan, *liveState, error) {
	f.mu.Lock()
	live, ing := f.live, f.ingressByKey[key]
	f.mu.Unlock()
	if live == nil {
		return nil, nil, ErrNotCreated
	}
	if ing == nil {
		return nil, nil, fmt.Errorf("%w %s", ErrUnknownIngress, key)
	}
	ing.lock.Lock()
	return ing, live, nil
}

func (f *FleetPlan) newIngressChange(live *liveState, kind string, ing *IngressPlan) FleetChange {
	f.mu.Lock()
	live.changes++
	id := fmt.Sprintf("%s-%04d", kind, live.changes)
	f.mu.Unlock()
	return FleetChange{ID: id, Kind: kind, Ingress: ing.Key()}
}

// forwardExpectations are the ExpectForward facts of every path of ing routed to svc. Callers hold
// ing.lock.
func (f *FleetPlan) forwardExpectations(ing *IngressPlan, svc string) []Expectation {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.serviceByKey[types.NamespacedName{Namespace: ing.Namespace, Name: svc}].info()
	var out []Expectation
	for _, p := range ing.Paths {
		if p.Service == svc {
			out = append(out, Expectation{Check: ExpectForward, Group: ing.Group, Ingress: ing.Key(), Host: ing.Host,
				Path: p.Path, Service: s.Key, ServicePort: s.Port, Targets: s.Targets})
		}
	}
	return out
}

// writeIngress makes the live Ingress's annotations and spec what the plan says, keeping everything
// else (other writers' annotations, status).
func (f *FleetPlan) writeIngress(ctx context.Context, live *liveState, ing *IngressPlan) error {
	f.mu.Lock()
	want := f.ingressObject(ing, live.opts.Labels)
	f.mu.Unlock()
	err := updateLatest(ctx, live.opts.Client, &networkingv1.Ingress{}, ing.Key(), func(have *networkingv1.Ingress) {
		if have.Annotations == nil {
			have.Annotations = map[string]string{}
		}
		maps.Copy(have.Annotations, want.Annotations)
		have.Spec = want.Spec
	})
	if err != nil {
		return fmt.Errorf("updating ingress %s: %w", ing.Key(), err)
	}
	return nil
}

// AddIngressRule adds the path /r<n> to the Ingress's rule, routed to one of its backends (drawn with
// the fleet's RNG). The FleetChange expects the new path to forward to that backend's targets.
func (f *FleetPlan) AddIngressRule(ctx context.Context, key types.NamespacedName) (FleetChange, error) {
	ing, live, err := f.beginIngress(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer ing.lock.Unlock()
	ch := f.newIngressChange(live, ChangeIngressRule, ing)
	f.mu.Lock()
	svc := f.serviceByKey[types.NamespacedName{Namespace: ing.Namespace, Name: ing.Backends[f.rng.IntN(len(ing.Backends))]}]
	path := IngressPath{Path: fmt.Sprintf("/r%d", ing.NextPath), Service: svc.Name, Port: svc.Port}
	ing.NextPath++
	ing.Paths = append(ing.Paths, path)
	f.mu.Unlock()
	for _, e := range f.forwardExpectations(ing, svc.Name) {
		if e.Path == path.Path {
			ch.Expect = append(ch.Expect, e)
		}
	}
	return ch, f.writeIngress(ctx, live, ing)
}

// nextPort is the port after p, wrapping from 65535 to 1.
func nextPort(p int32) int32 { return p%65535 + 1 }

// pickBackend draws one backend Service of ing with the fleet's RNG. Callers hold ing.lock.
func (f *FleetPlan) pickBackend(ing *IngressPlan) *ServicePlan {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.serviceByKey[types.NamespacedName{Namespace: ing.Namespace, Name: ing.Backends[f.rng.IntN(len(ing.Backends))]}]
}

// ChangeBackendPort moves one of the Ingress's backend Services (drawn with the fleet's RNG) to the next
// port number, then points the Ingress's paths at it. The FleetChange expects those paths to forward to
// the Service's new port, with unchanged targets.
func (f *FleetPlan) ChangeBackendPort(ctx context.Context, key types.NamespacedName) (FleetChange, error) {
	ing, live, err := f.beginIngress(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer ing.lock.Unlock()
	ch := f.newIngressChange(live, ChangeBackendPort, ing)
	s := f.pickBackend(ing)
	f.mu.Lock()
	s.Port = nextPort(s.Port)
	for i := range ing.Paths {
		if ing.Paths[i].Service == s.Name {
			ing.Paths[i].Port = s.Port
		}
	}
	f.mu.Unlock()
	ch.Expect = f.forwardExpectations(ing, s.Name)
	if err := f.updateService(ctx, live, s); err != nil {
		return ch, err
	}
	return ch, f.writeIngress(ctx, live, ing)
}

// ChangeBackendTargetPort moves one of the Ingress's backend Services (drawn with the fleet's RNG) to
// the next target port, in the Service and its EndpointSlice. The FleetChange expects the Ingress's paths
// to it to forward to its pods on the new port.
func (f *FleetPlan) ChangeBackendTargetPort(ctx context.Context, key types.NamespacedName) (FleetChange, error) {
	ing, live, err := f.beginIngress(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer ing.lock.Unlock()
	ch := f.newIngressChange(live, ChangeBackendTargetPort, ing)
	s := f.pickBackend(ing)
	f.mu.Lock()
	s.TargetPort = nextPort(s.TargetPort)
	f.mu.Unlock()
	ch.Expect = f.forwardExpectations(ing, s.Name)
	if err := f.updateService(ctx, live, s); err != nil {
		return ch, err
	}
	if f.Spec.ClusterEndpointSlices { // the cluster's controller follows the Service
		return ch, nil
	}
	err = updateLatest(ctx, live.opts.Client, &discoveryv1.EndpointSlice{}, types.NamespacedName{Namespace: s.Namespace, Name: kubesim.SliceName(s.Name)},
		func(slice *discoveryv1.EndpointSlice) {
			for i := range slice.Ports {
				slice.Ports[i].Port = &s.TargetPort
			}
		})
	if err != nil {
		return ch, fmt.Errorf("updating endpointslice of %s: %w", s.Key(), err)
	}
	return ch, nil
}

// updateService makes the live Service's port and target port what the plan says.
func (f *FleetPlan) updateService(ctx context.Context, live *liveState, s *ServicePlan) error {
	want := f.backendServiceObject(s, live.opts.Labels).Spec.Ports
	err := updateLatest(ctx, live.opts.Client, &corev1.Service{}, s.Key(), func(have *corev1.Service) {
		for i := range have.Spec.Ports {
			if have.Spec.Ports[i].Name == PortName {
				have.Spec.Ports[i].Port, have.Spec.Ports[i].TargetPort = want[0].Port, want[0].TargetPort
			}
		}
	})
	if err != nil {
		return fmt.Errorf("updating service %s: %w", s.Key(), err)
	}
	return nil
}

// RotateOIDCSecret writes a new client secret (drawn with the fleet's RNG) into the OIDC Ingress's
// client Secret. The FleetChange expects every path's listener rule to authenticate with it.
func (f *FleetPlan) RotateOIDCSecret(ctx context.Context, key types.NamespacedName) (FleetChange, error) {
	ing, live, err := f.beginIngress(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer ing.lock.Unlock()
	if ing.OIDC == nil {
		return FleetChange{}, fmt.Errorf("%w %s: no OIDC client Secret", ErrUnknownIngress, key)
	}
	ch := f.newIngressChange(live, ChangeSecretContent, ing)
	f.mu.Lock()
	ing.OIDC.ClientSecret = randHex(f.rng, 40)
	secret, paths := f.oidcSecretObject(ing, live.opts.Labels), slices.Clone(ing.Paths)
	f.mu.Unlock()
	for _, p := range paths {
		ch.Expect = append(ch.Expect, Expectation{Check: ExpectOIDCClientSecret, Group: ing.Group, Ingress: ing.Key(),
			Host: ing.Host, Path: p.Path, Value: ing.OIDC.ClientSecret})
	}
	err = updateLatest(ctx, live.opts.Client, &corev1.Secret{}, client.ObjectKeyFromObject(secret), func(have *corev1.Secret) {
		have.Data = secret.Data
	})
	if err != nil {
		return ch, fmt.Errorf("updating secret %s/%s: %w", secret.Namespace, secret.Name, err)
	}
	return ch, nil
}

// ChangeHealthCheckPath sets the Ingress's healthcheck-path annotation to a new path. The FleetChange expects
// the target group of each of its backends to check that path.
func (f *FleetPlan) ChangeHealthCheckPath(ctx context.Context, key types.NamespacedName) (FleetChange, error) {
	ing, live, err := f.beginIngress(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer ing.lock.Unlock()
	ch := f.newIngressChange(live, ChangeIngressAnnotation, ing)
	f.mu.Lock()
	ing.HealthCheckPath = "/healthz-" + ch.ID
	for _, b := range ing.Backends {
		s := f.serviceByKey[types.NamespacedName{Namespace: ing.Namespace, Name: b}]
		ch.Expect = append(ch.Expect, Expectation{Check: ExpectHealthCheckPath, Group: ing.Group, Ingress: ing.Key(),
			Service: s.Key(), ServicePort: s.Port, Value: ing.HealthCheckPath})
	}
	f.mu.Unlock()
	return ch, f.writeIngress(ctx, live, ing)
}

// updateLatest reads the object named key into obj, applies change and updates it, again from a fresh
// read on a conflict, so that other writers' changes are kept.
func updateLatest[T client.Object](ctx context.Context, c client.Client, obj T, key types.NamespacedName, change func(T)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, key, obj); err != nil {
			return err
		}
		change(obj)
		return c.Update(ctx, obj)
	})
}

// ChangeIngress makes the Ingress-side change of kind (ChangeIngressRule, ...) on the Ingress named key,
// so that a caller driven by a kind name needs no switch of its own.
func (f *FleetPlan) ChangeIngress(ctx context.Context, kind string, key types.NamespacedName) (FleetChange, error) {
	switch kind {
	case ChangeIngressRule:
		return f.AddIngressRule(ctx, key)
	case ChangeBackendPort:
		return f.ChangeBackendPort(ctx, key)
	case ChangeBackendTargetPort:
		return f.ChangeBackendTargetPort(ctx, key)
	case ChangeSecretContent:
		return f.RotateOIDCSecret(ctx, key)
	case ChangeIngressAnnotation:
		return f.ChangeHealthCheckPath(ctx, key)
	}
	return FleetChange{}, fmt.Errorf("workload: %q is not an Ingress change kind", kind)
}
