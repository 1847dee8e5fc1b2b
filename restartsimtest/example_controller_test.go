package restartsimtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbv2types "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/restartsimtest"
)

// The example's controller: a TargetPool (testdata/crds) is one ELBv2 target group. It creates the
// group, keeps its health check path, and records the generation AWS matches in the status with a
// Ready condition, so that after a restart an unchanged pool costs no AWS call.

var poolGVK = schema.GroupVersionKind{Group: "example.restartsim.io", Version: "v1alpha1", Kind: "TargetPool"}

type poolReconciler struct {
	client client.Client
	elb    *elbv2.Client
	vpcID  string
}

// setupPools is the SetupFunc: what the controller's main would register with its manager.
func setupPools(_ context.Context, mgr manager.Manager, env restartsimtest.Env) error {
	r := &poolReconciler{client: mgr.GetClient(), elb: elbv2.NewFromConfig(env.AWS), vpcID: env.VpcID}
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(poolGVK)
	return ctrl.NewControllerManagedBy(mgr).Named("targetpool").For(pool).Complete(r)
}

func (r *poolReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pool := &unstructured.Unstructured{}
	pool.SetGroupVersionKind(poolGVK)
	if err := r.client.Get(ctx, req.NamespacedName, pool); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if seen, _, _ := unstructured.NestedInt64(pool.Object, "status", "observedGeneration"); seen == pool.GetGeneration() {
		return ctrl.Result{}, nil // AWS already matches this generation
	}
	name, _, _ := unstructured.NestedString(pool.Object, "spec", "targetGroupName")
	path, _, _ := unstructured.NestedString(pool.Object, "spec", "healthCheckPath")
	arn, err := r.ensureTargetGroup(ctx, name, path)
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.markReady(ctx, pool, arn)
}

// ensureTargetGroup creates the target group, or sets its health check path when it differs.
func (r *poolReconciler) ensureTargetGroup(ctx context.Context, name, path string) (string, error) {
	out, err := r.elb.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{Names: []string{name}})
	var notFound *elbv2types.TargetGroupNotFoundException
	switch {
	case errors.As(err, &notFound):
		created, err := r.elb.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{Name: aws.String(name),
			Protocol: elbv2types.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(r.vpcID),
			TargetType: elbv2types.TargetTypeEnumIp, HealthCheckPath: aws.String(path)})
		if err != nil {
			return "", err
		}
		return aws.ToString(created.TargetGroups[0].TargetGroupArn), nil
	case err != nil:
		return "", err
	}
	tg := out.TargetGroups[0]
	if aws.ToString(tg.HealthCheckPath) != path {
		if _, err := r.elb.ModifyTargetGroup(ctx, &elbv2.ModifyTargetGroupInput{TargetGroupArn: tg.TargetGroupArn,
			HealthCheckPath: aws.String(path)}); err != nil {
			return "", err
		}
	}
	return aws.ToString(tg.TargetGroupArn), nil
}

func (r *poolReconciler) markReady(ctx context.Context, pool *unstructured.Unstructured, arn string) error {
	gen := pool.GetGeneration()
	patch, err := json.Marshal(map[string]any{"status": map[string]any{
		"observedGeneration": gen, "targetGroupARN": arn,
		"conditions": []map[string]any{{"type": "Ready", "status": "True", "reason": "Synced", "observedGeneration": gen,
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}},
	}})
	if err != nil {
		return err
	}
	return r.client.Status().Patch(ctx, pool, client.RawPatch(types.MergePatchType, patch))
}
