package objects

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// widgetFinalizer holds a Widget until its controller deleted its target group.
const widgetFinalizer = "test.restartsim.io/target-group"

// widgetController is a small controller of the test CRD's Widgets in the style of ACK: a target group per
// Widget (named by spec.name) through the ELBv2 API, its ARN and a synced condition in the status, and a
// finalizer that deletes the target group before the Widget goes. It polls; Passes counts its full passes,
// so that a test can wait for one.
type widgetController struct {
	c          client.Client
	api        *elb.Client
	vpc        string
	namespaces []string
	passes     atomic.Int64
}

// start runs the controller until the returned stop is called; stop returns once it has stopped.
func (w *widgetController) start(ctx context.Context) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			if err := w.pass(ctx); err == nil {
				w.passes.Add(1)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

func (w *widgetController) pass(ctx context.Context) error {
	for _, ns := range w.namespaces {
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion("test.restartsim.io/v1")
		list.SetKind("WidgetList")
		if err := w.c.List(ctx, list, client.InNamespace(ns)); err != nil {
			return err
		}
		for i := range list.Items {
			if err := w.reconcile(ctx, &list.Items[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *widgetController) reconcile(ctx context.Context, u *unstructured.Unstructured) error {
	arn, _, _ := unstructured.NestedString(u.Object, "status", "arn")
	if u.GetDeletionTimestamp() != nil {
		if !slices.Contains(u.GetFinalizers(), widgetFinalizer) {
			return nil
		}
		if arn != "" {
			_, err := w.api.DeleteTargetGroup(ctx, &elb.DeleteTargetGroupInput{TargetGroupArn: aws.String(arn)})
			var apiErr smithy.APIError
			if err != nil && !(errors.As(err, &apiErr) && apiErr.ErrorCode() == "TargetGroupNotFound") {
				return err
			}
		}
		return w.c.Patch(ctx, u, client.RawPatch(k8stypes.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`)))
	}
	if !slices.Contains(u.GetFinalizers(), widgetFinalizer) {
		if err := w.c.Patch(ctx, u, client.RawPatch(k8stypes.MergePatchType, []byte(`{"metadata":{"finalizers":["`+widgetFinalizer+`"]}}`))); err != nil {
			return err
		}
	}
	if arn != "" {
		return nil
	}
	spec := u.Object["spec"].(map[string]any)
	out, err := w.api.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{
		Name: aws.String(spec["name"].(string)), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(int32(spec["port"].(int64))),
		VpcId: aws.String(w.vpc), TargetType: elbtypes.TargetTypeEnumIp, HealthCheckPath: aws.String(spec["healthCheckPath"].(string)),
	})
	if err != nil {
		return err
	}
	status := map[string]any{"status": map[string]any{"arn": *out.TargetGroups[0].TargetGroupArn,
		"conditions": []any{map[string]any{"type": "ACK.ResourceSynced", "status": "True"}}}}
	data, err := json.Marshal(status)
	if err != nil {
		return err
	}
	return w.c.Status().Patch(ctx, u, client.RawPatch(k8stypes.MergePatchType, data))
}
