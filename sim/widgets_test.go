package sim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The widget controller is a controller of a design other than the reference's, for the object
// groups' tests: like an ACK controller it owns one AWS resource per object (a Widget of the
// object compiler's test CRD is a target group), keeps no checkpoint, re-reads every object's
// resource on every start with one worker, and reports the resource's ARN and a Synced condition
// in the object's status; a finalizer holds a deleted Widget until its target group is deleted. The test binary runs it as an external controller when
// RESTARTSIM_TEST_WIDGET_CONTROLLER is set (see TestMain), configured by the WIDGET_* variables.
const widgetControllerEnv = "RESTARTSIM_TEST_WIDGET_CONTROLLER"

var widgetGVK = schema.GroupVersionKind{Group: "test.restartsim.io", Version: "v1", Kind: "Widget"}

func widgetControllerMain() int {
	ctrl.SetLogger(zap.New(zap.UseDevMode(false)))
	log := ctrl.Log.WithName("widgets")
	cfg, err := clientcmd.BuildConfigFromFlags("", os.Getenv("WIDGET_KUBECONFIG"))
	if err != nil {
		log.Error(err, "kubeconfig")
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	awsCfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		log.Error(err, "AWS configuration")
		return 1
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Metrics: metricsserver.Options{BindAddress: os.Getenv("WIDGET_METRICS")}})
	if err != nil {
		log.Error(err, "manager")
		return 1
	}
	r := &widgetReconciler{c: mgr.GetClient(), elb: elb.NewFromConfig(awsCfg), vpc: os.Getenv("WIDGET_VPC_ID"),
		retain: os.Getenv("WIDGET_RETAIN") == "1"}
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetGVK)
	if err := ctrl.NewControllerManagedBy(mgr).For(w).WithOptions(controller.Options{MaxConcurrentReconciles: 1}).Named("widget").Complete(r); err != nil {
		log.Error(err, "controller")
		return 1
	}
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "manager stopped")
		return 1
	}
	return 0
}

type widgetReconciler struct {
	c   client.Client
	elb *elb.Client
	vpc string
	// retain keeps a deleted Widget's target group (WIDGET_RETAIN=1), as ACK's deletion policy
	// retain or external-dns's upsert-only policy keep what they made.
	retain bool
}

// Reconcile makes the Widget's target group match its spec: created when missing, its health
// check path modified when it differs, read in full every time.
func (r *widgetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	w := &unstructured.Unstructured{}
	w.SetGroupVersionKind(widgetGVK)
	if err := r.c.Get(ctx, req.NamespacedName, w); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	name, _, _ := unstructured.NestedString(w.Object, "spec", "name")
	path, _, _ := unstructured.NestedString(w.Object, "spec", "healthCheckPath")
	port, _, _ := unstructured.NestedInt64(w.Object, "spec", "port")
	if w.GetDeletionTimestamp() != nil {
		return ctrl.Result{}, r.finalize(ctx, w, name)
	}
	if msg := os.Getenv("WIDGET_TERMINAL"); msg != "" {
		return ctrl.Result{}, r.giveUp(ctx, w, msg)
	}
	if !controllerutil.ContainsFinalizer(w, widgetFinalizer) {
		patch := client.MergeFrom(w.DeepCopy())
		controllerutil.AddFinalizer(w, widgetFinalizer)
		if err := r.c.Patch(ctx, w, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	tg, err := r.describe(ctx, name)
	if err != nil {
		return ctrl.Result{}, err
	}
	switch {
	case tg == nil:
		out, err := r.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String(name), Protocol: elbtypes.ProtocolEnumHttp,
			Port: aws.Int32(int32(port)), VpcId: aws.String(r.vpc), TargetType: elbtypes.TargetTypeEnumIp, HealthCheckPath: aws.String(path)})
		if err != nil {
			return ctrl.Result{}, err
		}
		tg = &out.TargetGroups[0]
	case aws.ToString(tg.HealthCheckPath) != path:
		if _, err := r.elb.ModifyTargetGroup(ctx, &elb.ModifyTargetGroupInput{TargetGroupArn: tg.TargetGroupArn, HealthCheckPath: aws.String(path)}); err != nil {
			return ctrl.Result{}, err
		}
	}
	if _, err := r.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: tg.TargetGroupArn}); err != nil {
		return ctrl.Result{}, err
	}
	arn, _, _ := unstructured.NestedString(w.Object, "status", "arn")
	if arn == aws.ToString(tg.TargetGroupArn) {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(w.DeepCopy())
	_ = unstructured.SetNestedField(w.Object, aws.ToString(tg.TargetGroupArn), "status", "arn")
	_ = unstructured.SetNestedSlice(w.Object, []any{map[string]any{"type": "Synced", "status": "True",
		"lastTransitionTime": metav1.Now().UTC().Format("2006-01-02T15:04:05Z")}}, "status", "conditions")
	if err := r.c.Status().Patch(ctx, w, patch); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, nil
}

// giveUp marks a Widget with a terminal error without calling AWS, as ACK does for input AWS refuses.
func (r *widgetReconciler) giveUp(ctx context.Context, w *unstructured.Unstructured, msg string) error {
	patch := client.MergeFrom(w.DeepCopy())
	_ = unstructured.SetNestedSlice(w.Object, []any{map[string]any{"type": "Terminal", "status": "True", "message": msg}}, "status", "conditions")
	return client.IgnoreNotFound(r.c.Status().Patch(ctx, w, patch))
}

// widgetFinalizer holds a Widget until its target group is deleted, as ACK's finalizer does.
const widgetFinalizer = "test.restartsim.io/target-group"

// finalize deletes a deleted Widget's target group, then lets the Widget go.
func (r *widgetReconciler) finalize(ctx context.Context, w *unstructured.Unstructured, name string) error {
	if !controllerutil.ContainsFinalizer(w, widgetFinalizer) {
		return nil
	}
	tg, err := r.describe(ctx, name)
	if err != nil {
		return err
	}
	if tg != nil && !r.retain {
		if _, err := r.elb.DeleteTargetGroup(ctx, &elb.DeleteTargetGroupInput{TargetGroupArn: tg.TargetGroupArn}); err != nil {
			return err
		}
	}
	patch := client.MergeFrom(w.DeepCopy())
	controllerutil.RemoveFinalizer(w, widgetFinalizer)
	return client.IgnoreNotFound(r.c.Patch(ctx, w, patch))
}

// describe returns the target group named name, nil when there is none.
func (r *widgetReconciler) describe(ctx context.Context, name string) (*elbtypes.TargetGroup, error) {
	out, err := r.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{Names: []string{name}})
	var nf *elbtypes.TargetGroupNotFoundException
	switch {
	case errors.As(err, &nf):
		return nil, nil
	case err != nil:
		return nil, err
	case len(out.TargetGroups) != 1:
		return nil, fmt.Errorf("target group %s: %d found", name, len(out.TargetGroups))
	}
	return &out.TargetGroups[0], nil
}
