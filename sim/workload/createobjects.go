package workload

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/sim/apiretry"
)

// provisionTGB creates the TGB's target group and seeds its pods' ENIs.
func (f *FleetPlan) provisionTGB(ctx context.Context, live *liveState, t *TGBPlan, cnt *counters) error {
	// The group's default port; targets always carry their own (NodePort or container port).
	arn, err := live.opts.AWS.CreateTargetGroup(ctx, t.TargetGroupName, t.TargetType, f.Spec.Port, f.Spec.VpcID)
	if err != nil {
		return fmt.Errorf("creating target group %s: %w", t.TargetGroupName, err)
	}
	cnt.called()
	t.TargetGroupARN = arn
	for _, p := range t.Pods {
		if err := f.seedENI(ctx, live, p); err != nil {
			return err
		}
		cnt.called()
	}
	return nil
}

// createNode creates a Node and makes sure its status (Ready, InternalIP) is set.
func (f *FleetPlan) createNode(ctx context.Context, live *liveState, n NodePlan, now metav1.Time, cnt *counters) error {
	c := live.opts.Client
	want := f.nodeObject(n, live.sgIDs[n.SecurityGroup], live.opts.Labels, now)
	obj := want.DeepCopy()
	if err := apiretry.Create(ctx, c, obj); err != nil {
		return fmt.Errorf("creating node %s: %w", n.Name, err)
	}
	cnt.wrote(true)
	if len(obj.Status.Conditions) == 0 { // the API server dropped the status on create
		obj.Status = want.Status
		if err := apiretry.OnTransient(ctx, func() error { return c.Status().Update(ctx, obj) }); err != nil {
			return fmt.Errorf("setting status of node %s: %w", n.Name, err)
		}
	}
	cnt.wrote(false) // counted either way, so the progress total holds
	return nil
}

// createTGBObjects creates the Service, the pods with their status, and the EndpointSlice (unless the
// cluster's EndpointSlice controller writes it).
func (f *FleetPlan) createTGBObjects(ctx context.Context, live *liveState, t *TGBPlan, now metav1.Time, cnt *counters) error {
	c, run := live.opts.Client, live.opts.Labels
	svc := f.serviceObject(t, run)
	err := apiretry.Create(ctx, c, svc)
	if err != nil && t.NodePort != 0 && apierrors.IsInvalid(err) && strings.Contains(err.Error(), "already allocated") {
		// A real cluster may already use the planned NodePort: let the API server pick one.
		live.opts.Logger.Info("planned NodePort taken, using an allocated one", "service", t.Key(), "nodePort", t.NodePort)
		svc = f.serviceObject(t, run)
		svc.Spec.Ports[0].NodePort = 0
		if err = apiretry.Create(ctx, c, svc); err == nil {
			t.NodePort = svc.Spec.Ports[0].NodePort
		}
	}
	if err != nil {
		return fmt.Errorf("creating service %s/%s: %w", t.Namespace, t.Name, err)
	}
	cnt.wrote(true)
	pods := make([]*corev1.Pod, 0, len(t.Pods))
	for _, p := range t.Pods {
		pod, err := f.startPod(ctx, live, t, p, now)
		if err != nil {
			return err
		}
		cnt.wrote(true)
		cnt.wrote(false)
		pods = append(pods, pod)
	}
	if f.Spec.ClusterEndpointSlices {
		return nil
	}
	slice := f.sliceObject(t, pods, run)
	if err := apiretry.Create(ctx, c, slice); err != nil {
		return fmt.Errorf("creating endpointslice of %s/%s: %w", t.Namespace, t.Name, err)
	}
	cnt.wrote(true)
	if !t.DuplicateEndpoint {
		return nil
	}
	if err := apiretry.Create(ctx, c, duplicateSliceObject(slice)); err != nil {
		return fmt.Errorf("creating the second endpointslice of %s/%s: %w", t.Namespace, t.Name, err)
	}
	cnt.wrote(true)
	return nil
}

// startPod creates a pod and gives it the status of a started pod (two writes).
func (f *FleetPlan) startPod(ctx context.Context, live *liveState, t *TGBPlan, p PodPlan, now metav1.Time) (*corev1.Pod, error) {
	return f.startPodObject(ctx, live, f.podObject(t, p, live.sgIDs[p.SecurityGroup], live.opts.Labels), p, now)
}

// startPodObject creates pod (planned as p) and gives it the status of a started pod (two writes).
func (f *FleetPlan) startPodObject(ctx context.Context, live *liveState, pod *corev1.Pod, p PodPlan, now metav1.Time) (*corev1.Pod, error) {
	c := live.opts.Client
	if err := apiretry.Create(ctx, c, pod); err != nil {
		return nil, fmt.Errorf("creating pod %s/%s: %w", pod.Namespace, p.Name, err)
	}
	pod.Status = f.runningStatus(pod, p, now)
	if err := apiretry.OnTransient(ctx, func() error { return c.Status().Update(ctx, pod) }); err != nil {
		return nil, fmt.Errorf("setting status of pod %s/%s: %w", pod.Namespace, p.Name, err)
	}
	return pod, nil
}

func (f *FleetPlan) createTGB(ctx context.Context, live *liveState, t *TGBPlan, cnt *counters) error {
	if err := apiretry.Create(ctx, live.opts.Client, f.tgbObject(t, live.opts.Labels)); err != nil {
		return fmt.Errorf("creating targetgroupbinding %s/%s: %w", t.Namespace, t.Name, err)
	}
	cnt.wrote(true)
	return nil
}
