package controller

import (
	"context"
	"fmt"

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

// resolve reads the binding's endpoints from the cache (from the API server on the fast path).
func (c *Controller) resolve(ctx context.Context, tgb *v1beta1.TargetGroupBinding, tg targetGroupInfo, svc *corev1.Service) (endpoints.Result, error) {
	sp, err := endpoints.ServicePort(svc, tgb.Spec.ServiceRef.Port)
	if err != nil {
		return endpoints.Result{}, err
	}
	if tg.Type == v1beta1.TargetTypeInstance {
		var nodes corev1.NodeList
		if err := c.reader(ctx).List(ctx, &nodes, c.readOnly()...); err != nil {
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
	if err := c.listSlices(ctx, &slices, svc); err != nil {
		return endpoints.Result{}, err
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
		Pod: func(name string) (*corev1.Pod, bool) {
			pod := &corev1.Pod{}
			if err := c.reader(ctx).Get(ctx, types.NamespacedName{Namespace: svc.Namespace, Name: name}, pod, c.readOnlyGet()...); err != nil {
				return nil, false
			}
			return pod, true
		},
	}), nil
}

// listSlices lists the Service's EndpointSlices: by field index from the cache, or by label from
// the API server on the resume fast path.
func (c *Controller) listSlices(ctx context.Context, slices *discoveryv1.EndpointSliceList, svc *corev1.Service) error {
	if liveReads(ctx) {
		return c.apiReader.List(ctx, slices, client.InNamespace(svc.Namespace),
			client.MatchingLabels{discoveryv1.LabelServiceName: svc.Name})
	}
	return c.client.List(ctx, slices, c.readOnly(client.InNamespace(svc.Namespace),
		client.MatchingFields{indexSliceService: svc.Name})...)
}
