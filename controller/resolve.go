package controller

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/endpoints"
	"github.com/restartsim/restartsim/controller/internal/readinessgate"
)

// resolve reads the binding's endpoints where r says: from the cache, or from the API server on
// the fast path, where prefetched, if not nil, delivers the Service's EndpointSlices.
func (c *Controller) resolve(ctx context.Context, r reads, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo, svc *corev1.Service,
	prefetched <-chan liveSlices) (endpoints.Result, error) {
	sp, err := endpoints.ServicePort(svc, tgb.Spec.ServiceRef.Port)
	if err != nil {
		return endpoints.Result{}, err
	}
	if tg.Type == v1beta1.TargetTypeInstance {
		var nodes corev1.NodeList
		if err := c.reader(r).List(ctx, &nodes, c.readOnly(r.nodeOptions()...)...); err != nil {
			return endpoints.Result{}, err
		}
		var sel labels.Selector
		if tgb.Spec.NodeSelector != nil {
			if sel, err = metav1.LabelSelectorAsSelector(tgb.Spec.NodeSelector); err != nil {
				return endpoints.Result{}, reconcile.TerminalError(fmt.Errorf("nodeSelector: %w", err))
			}
		}
		return endpoints.ResolveInstance(endpoints.InstanceInput{ServicePort: sp, Nodes: nodes.Items, Selector: sel})
	}
	var slices discoveryv1.EndpointSliceList
	if prefetched != nil {
		pre := <-prefetched
		if pre.err != nil {
			return endpoints.Result{}, pre.err
		}
		slices = pre.list
	} else if err := c.listSlices(ctx, r, &slices, svc.Namespace, svc.Name); err != nil {
		return endpoints.Result{}, err
	}
	pod := func(name string) (*corev1.Pod, bool) {
		pod := &corev1.Pod{}
		if err := c.reader(r).Get(ctx, types.NamespacedName{Namespace: svc.Namespace, Name: name}, pod, c.readOnlyGet()...); err != nil {
			return nil, false
		}
		return pod, true
	}
	if r.isLive() {
		pods := c.livePods(ctx, svc.Namespace, slices.Items)
		pod = func(name string) (*corev1.Pod, bool) { p, ok := pods[name]; return p, ok }
	}
	addrType := discoveryv1.AddressTypeIPv4
	if tgb.Spec.IPAddressType != nil && *tgb.Spec.IPAddressType == v1beta1.IPAddressTypeIPv6 {
		addrType = discoveryv1.AddressTypeIPv6
	}
	return endpoints.ResolveIP(endpoints.IPInput{
		ServicePort: sp, Slices: slices.Items, AddressType: addrType,
		Gate:           readinessgate.ConditionType(tgb.Name),
		NoGateHoldBack: c.opts.Mutant == MutantNoGateHoldBack,
		// Pods are read-only here and later deep-copied before any patch (updateReadinessGates).
		Pod: pod,
	}), nil
}

// liveSlices is the result of listSlicesAsync.
type liveSlices struct {
	list discoveryv1.EndpointSliceList
	err  error
}

// listSlicesAsync lists a Service's EndpointSlices in the background (fast path).
func (c *Controller) listSlicesAsync(ctx context.Context, r reads, svc types.NamespacedName) <-chan liveSlices {
	out := make(chan liveSlices, 1)
	go func() {
		var res liveSlices
		res.err = c.listSlices(ctx, r, &res.list, svc.Namespace, svc.Name)
		out <- res
	}()
	return out
}

// livePodReads bounds the concurrent pod reads of one fast-path reconcile.
const livePodReads = 8

// livePods reads the pods the slices' endpoints name, concurrently: on the fast path each is a
// round trip to the API server, and a binding's pods one after the other were most of its
// reconcile's time. A pod that cannot be read is missing from the result, as from the cache.
func (c *Controller) livePods(ctx context.Context, namespace string, slices []discoveryv1.EndpointSlice) map[string]*corev1.Pod {
	names := map[string]bool{}
	for i := range slices {
		for _, ep := range slices[i].Endpoints {
			if ep.TargetRef != nil && ep.TargetRef.Kind == "Pod" {
				names[ep.TargetRef.Name] = true
			}
		}
	}
	var (
		mu   sync.Mutex
		pods = make(map[string]*corev1.Pod, len(names))
		wg   sync.WaitGroup
		sem  = make(chan struct{}, livePodReads)
	)
	for name := range names {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			pod := &corev1.Pod{}
			if err := c.apiReader.Get(ctx, types.NamespacedName{Namespace: namespace, Name: name}, pod); err != nil {
				return
			}
			mu.Lock()
			pods[name] = pod
			mu.Unlock()
		})
	}
	wg.Wait()
	return pods
}

// listSlices lists the Service's EndpointSlices: by field index from the cache, or by label from
// the API server on the resume fast path (r live).
func (c *Controller) listSlices(ctx context.Context, r reads, slices *discoveryv1.EndpointSliceList, namespace, service string) error {
	if r.isLive() {
		opts := append([]client.ListOption{client.InNamespace(namespace),
			client.MatchingLabels{discoveryv1.LabelServiceName: service}}, r.sliceOptions()...)
		return c.apiReader.List(ctx, slices, opts...)
	}
	return c.client.List(ctx, slices, c.readOnly(client.InNamespace(namespace),
		client.MatchingFields{indexSliceService: service})...)
}
