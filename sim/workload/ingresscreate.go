package workload

import (
	"context"
	"fmt"

	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/sim/apiretry"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ingressSteps is the number of writes and AWS calls createIngressSide makes (for the progress total).
func (f *FleetPlan) ingressSteps() int64 {
	n := 0
	if len(f.IngressPlans) > 0 {
		n++ // the IngressClass
	}
	perService := 2 // Service, EndpointSlice
	if f.Spec.ClusterEndpointSlices {
		perService = 1
	}
	for _, s := range f.ingressSideServices() {
		n += perService + 3*len(s.Pods) // per pod: create, status, branch ENI
	}
	for _, ing := range f.IngressPlans {
		n++
		if ing.TLS != nil {
			n++
		}
		if ing.OIDC != nil {
			n++
		}
	}
	return int64(n)
}

// createIngressSide creates the Ingress side after the TGB fleet: the IngressClass, every Service with
// its pods (and their branch ENIs) and EndpointSlice, then each Ingress after its Secrets. A
// LoadBalancer Service is created after its pods and slice, and an Ingress after its backends, so a
// controller never sees an object whose parts are missing.
func (f *FleetPlan) createIngressSide(ctx context.Context, live *liveState, cnt *counters) error {
	if len(f.IngressPlans) == 0 && len(f.LoadBalancerServices) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if len(f.IngressPlans) > 0 {
		if err := f.createIngressClass(ctx, live); err != nil {
			return err
		}
		cnt.wrote(true)
	}
	now := metav1.NewTime(live.opts.Clock.Now())
	services := f.ingressSideServices()
	runPool(ctx, live.opts.Concurrency, len(services), func(i int) {
		if err := f.createServiceObjects(ctx, live, services[i], now, cnt); err != nil {
			cancel(err)
		}
	})
	if err := context.Cause(ctx); err != nil {
		return err
	}
	runPool(ctx, live.opts.Concurrency, len(f.IngressPlans), func(i int) {
		if err := f.createIngress(ctx, live, f.IngressPlans[i], cnt); err != nil {
			cancel(err)
		}
	})
	return context.Cause(ctx)
}

// createIngressClass creates the alb IngressClass, or accepts one that a real cluster's LBC installation
// already has (it is cluster-wide and unlabelled then, so Cleanup leaves it).
func (f *FleetPlan) createIngressClass(ctx context.Context, live *liveState) error {
	c := live.opts.Client
	err := apiretry.Create(ctx, c, f.ingressClassObject(live.opts.Labels))
	if apierrors.IsAlreadyExists(err) {
		var have networkingv1.IngressClass
		if err := c.Get(ctx, types.NamespacedName{Name: IngressClassName}, &have); err != nil {
			return fmt.Errorf("reading ingressclass %s: %w", IngressClassName, err)
		}
		if have.Spec.Controller != lbmodel.IngressClassController {
			return fmt.Errorf("ingressclass %s exists with controller %q, want %q", IngressClassName, have.Spec.Controller, lbmodel.IngressClassController)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("creating ingressclass %s: %w", IngressClassName, err)
	}
	return nil
}

// createServiceObjects creates a Service of the Ingress side with its pods and EndpointSlice.
func (f *FleetPlan) createServiceObjects(ctx context.Context, live *liveState, s *ServicePlan, now metav1.Time, cnt *counters) error {
	c, run := live.opts.Client, live.opts.Labels
	createService := func() error {
		if err := apiretry.Create(ctx, c, f.backendServiceObject(s, run)); err != nil {
			return fmt.Errorf("creating service %s/%s: %w", s.Namespace, s.Name, err)
		}
		cnt.wrote(true)
		return nil
	}
	if !s.LoadBalancer {
		if err := createService(); err != nil {
			return err
		}
	}
	pods := make([]*corev1.Pod, 0, len(s.Pods))
	for _, p := range s.Pods {
		if err := f.seedENI(ctx, live, p); err != nil {
			return err
		}
		cnt.called()
		pod, err := f.startPodObject(ctx, live, f.servicePodObject(s.Namespace, s.Name, p, live.sgIDs[p.SecurityGroup], run), p, now)
		if err != nil {
			return err
		}
		cnt.wrote(true)
		cnt.wrote(false)
		pods = append(pods, pod)
	}
	if !f.Spec.ClusterEndpointSlices {
		if err := apiretry.Create(ctx, c, serviceSliceObject(s.Namespace, s.Name, s.TargetPort, pods, run)); err != nil {
			return fmt.Errorf("creating endpointslice of %s/%s: %w", s.Namespace, s.Name, err)
		}
		cnt.wrote(true)
	}
	if s.LoadBalancer {
		return createService()
	}
	return nil
}

// createIngress creates an Ingress's Secrets, then the Ingress.
func (f *FleetPlan) createIngress(ctx context.Context, live *liveState, ing *IngressPlan, cnt *counters) error {
	c, run := live.opts.Client, live.opts.Labels
	if ing.TLS != nil {
		// The HTTPS listener's certificate must exist in ACM before the controller creates the listener.
		if err := live.opts.AWS.SeedCertificate(ctx, ing.TLS.CertificateARN, ing.Host); err != nil {
			return fmt.Errorf("seeding certificate %s: %w", ing.TLS.CertificateARN, err)
		}
		secret, err := f.tlsSecretObject(ing, run)
		if err != nil {
			return err
		}
		if err := apiretry.Create(ctx, c, secret); err != nil {
			return fmt.Errorf("creating secret %s/%s: %w", ing.Namespace, secret.Name, err)
		}
		cnt.wrote(true)
	}
	if ing.OIDC != nil {
		if err := apiretry.Create(ctx, c, f.oidcSecretObject(ing, run)); err != nil {
			return fmt.Errorf("creating secret %s/%s: %w", ing.Namespace, ing.OIDC.SecretName, err)
		}
		cnt.wrote(true)
	}
	if err := apiretry.Create(ctx, c, f.ingressObject(ing, run)); err != nil {
		return fmt.Errorf("creating ingress %s/%s: %w", ing.Namespace, ing.Name, err)
	}
	cnt.wrote(true)
	return nil
}
