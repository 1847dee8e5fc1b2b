package lb

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/lbdeploy"
	"github.com/restartsim/restartsim/controller/lbmodel"
)

// ModelCheckpointAnnotation holds, on every member of an Ingress group and on a load balancer Service,
// the lbmodel.Checkpoint of the stack last deployed for it; "" while a deploy is in progress. Its prefix
// is neither alb.ingress.kubernetes.io/ nor service.beta.kubernetes.io/, so writing it does not change
// the checkpoint it stores.
const ModelCheckpointAnnotation = "elbv2.k8s.aws/model-checkpoint"

// Finalizers of the load balancer reconcilers, LBC's names: a member keeps its finalizer until its
// stack no longer holds anything of it.
const (
	IngressFinalizer = "ingress.k8s.aws/resources"
	ServiceFinalizer = "service.k8s.aws/resources"
)

// requeueBindingsGone is how soon a reconcile looks again while the TargetGroupBindings it deleted
// still deregister their targets; their target groups must outlive them.
const requeueBindingsGone = time.Second

// reconciler holds what the Ingress and Service reconcilers share.
type reconciler struct {
	cfg      Config
	client   client.Client
	scheme   *runtime.Scheme
	log      logr.Logger
	deployer *lbdeploy.Deployer
	metrics  *reconcileMetrics
}

// stackSource is one stack to reconcile and the Kubernetes objects it comes from.
type stackSource struct {
	id lbmodel.StackID
	// members are the live objects the stack is built from: each carries the finalizer, the model
	// checkpoint and the load balancer's hostname in its status.
	members []client.Object
	// leaving are objects that still hold the finalizer but are deleted or no longer managed: their
	// finalizer goes once the stack is deployed (or deleted) without them.
	leaving   []client.Object
	finalizer string
	build     func() (lbmodel.Stack, lbmodel.Inputs, error)
	// owner is the member that owns a binding's TargetGroupBinding (same namespace).
	owner func(b lbmodel.Binding) client.Object
	// setHostname writes host into a member's status; false when it is already there.
	setHostname func(obj client.Object, host string) bool
}

// reconcileStack deploys the stack of s (or deletes it when s has no member left), with the model
// checkpoint early exit, and counts the result.
func (r *reconciler) reconcileStack(ctx context.Context, s stackSource) (reconcile.Result, error) {
	log := r.log.WithValues("stack", s.id.Name, "kind", s.id.Kind)
	var (
		res    reconcile.Result
		result string
		err    error
	)
	if len(s.members) == 0 {
		res, err = r.deleteStack(ctx, log, s)
		result = resultDeleted
	} else {
		res, result, err = r.deployStack(ctx, log, s)
	}
	if err != nil {
		result = resultError
		log.Error(err, "load balancer reconcile failed")
	}
	if result != "" && (res.IsZero() || err != nil) {
		r.metrics.reconciles.WithLabelValues(string(s.id.Kind), result).Inc()
	}
	return res, err
}

// deployStack is the reconcile of a stack with members: build, checkpoint early exit, checkpoint
// reset, finalizers, bindings no longer wanted, deploy, bindings, status, checkpoint save.
func (r *reconciler) deployStack(ctx context.Context, log logr.Logger, s stackSource) (reconcile.Result, string, error) {
	stack, inputs, err := s.build()
	if err != nil {
		return reconcile.Result{}, "", fmt.Errorf("building the model: %w", err)
	}
	sum, err := r.checkpointOf(stack, inputs)
	if err != nil {
		return reconcile.Result{}, "", err
	}
	if r.cfg.ModelCheckpoint && len(s.leaving) == 0 && allCheckpointed(s.members, sum) {
		r.metrics.skips.WithLabelValues(string(s.id.Kind)).Inc()
		log.V(1).Info("model checkpoint matches, skipped")
		return reconcile.Result{}, resultSkipped, nil
	}
	// Reset first: a crash between here and the save must never leave a stale matching checkpoint.
	if err := r.setCheckpoints(ctx, s.members, ""); err != nil {
		return reconcile.Result{}, "", err
	}
	for _, m := range s.members {
		if err := r.patchFinalizer(ctx, m, s.finalizer, true); err != nil {
			return reconcile.Result{}, "", err
		}
	}
	pending, err := r.deleteUnwantedBindings(ctx, s.id, stack.Bindings)
	if err != nil || pending > 0 {
		return reconcile.Result{RequeueAfter: requeueBindingsGone}, "", err
	}
	deployed, err := r.deployer.Deploy(ctx, stack)
	if err != nil {
		return reconcile.Result{}, "", fmt.Errorf("deploying: %w", err)
	}
	if err := r.applyBindings(ctx, s, stack.Bindings, deployed.TargetGroupARNs); err != nil {
		return reconcile.Result{}, "", err
	}
	if err := r.setHostnames(ctx, s, deployed.DNSName); err != nil {
		return reconcile.Result{}, "", err
	}
	if err := r.releaseLeaving(ctx, s); err != nil {
		return reconcile.Result{}, "", err
	}
	if r.cfg.ModelCheckpoint {
		if err := r.setCheckpoints(ctx, s.members, sum); err != nil {
			return reconcile.Result{}, "", err
		}
	}
	log.Info("deployed load balancer", "dnsName", deployed.DNSName, "targetGroups", len(deployed.TargetGroupARNs))
	return reconcile.Result{}, resultDeployed, nil
}

// deleteStack removes a stack without members: its TargetGroupBindings first (they deregister their
// targets while the target groups still exist), then the AWS resources, then the finalizers.
func (r *reconciler) deleteStack(ctx context.Context, log logr.Logger, s stackSource) (reconcile.Result, error) {
	pending, err := r.deleteUnwantedBindings(ctx, s.id, nil)
	if err != nil || pending > 0 {
		return reconcile.Result{RequeueAfter: requeueBindingsGone}, err
	}
	if err := r.deployer.Delete(ctx, s.id); err != nil {
		return reconcile.Result{}, fmt.Errorf("deleting: %w", err)
	}
	if err := r.releaseLeaving(ctx, s); err != nil {
		return reconcile.Result{}, err
	}
	if len(s.leaving) > 0 {
		log.Info("deleted load balancer stack")
	}
	return reconcile.Result{}, nil
}

// checkpointOf is the model checkpoint, without the Secrets when Config.SecretBlindCheckpoint asks so.
func (r *reconciler) checkpointOf(stack lbmodel.Stack, in lbmodel.Inputs) (string, error) {
	if r.cfg.SecretBlindCheckpoint {
		return lbmodel.CheckpointIgnoringSecrets(stack, in)
	}
	return lbmodel.Checkpoint(stack, in)
}

func allCheckpointed(members []client.Object, sum string) bool {
	for _, m := range members {
		if m.GetAnnotations()[ModelCheckpointAnnotation] != sum {
			return false
		}
	}
	return true
}

// setCheckpoints patches the checkpoint annotation of every member whose value differs from sum;
// resetting ("") leaves members without the annotation alone.
func (r *reconciler) setCheckpoints(ctx context.Context, members []client.Object, sum string) error {
	for _, m := range members {
		cur, ok := m.GetAnnotations()[ModelCheckpointAnnotation]
		if cur == sum && (ok || sum == "") {
			continue
		}
		orig := m.DeepCopyObject().(client.Object)
		ann := m.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[ModelCheckpointAnnotation] = sum
		m.SetAnnotations(ann)
		if err := r.client.Patch(ctx, m, client.MergeFrom(orig)); err != nil {
			return fmt.Errorf("writing the model checkpoint of %s: %w", client.ObjectKeyFromObject(m), err)
		}
	}
	return nil
}

// patchFinalizer adds (or removes) the finalizer on obj when it is missing (or present).
func (r *reconciler) patchFinalizer(ctx context.Context, obj client.Object, finalizer string, add bool) error {
	if controllerutil.ContainsFinalizer(obj, finalizer) == add {
		return nil
	}
	orig := obj.DeepCopyObject().(client.Object)
	if add {
		controllerutil.AddFinalizer(obj, finalizer)
	} else {
		controllerutil.RemoveFinalizer(obj, finalizer)
	}
	err := r.client.Patch(ctx, obj, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
	if err != nil && (add || client.IgnoreNotFound(err) != nil) {
		return fmt.Errorf("finalizer of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// releaseLeaving removes the finalizer of the leaving objects; one that stays in the cluster (it
// left the class, or is no longer a load balancer Service) also loses its checkpoint and hostname.
func (r *reconciler) releaseLeaving(ctx context.Context, s stackSource) error {
	for _, m := range s.leaving {
		if m.GetDeletionTimestamp().IsZero() {
			if err := r.setCheckpoints(ctx, []client.Object{m}, ""); err != nil {
				return err
			}
			if err := r.setHostnames(ctx, stackSource{members: []client.Object{m}, setHostname: s.setHostname}, ""); err != nil {
				return err
			}
		}
		if err := r.patchFinalizer(ctx, m, s.finalizer, false); err != nil {
			return err
		}
	}
	return nil
}

// setHostnames writes the load balancer's DNS name (or, with "", no address) into every member's
// status.
func (r *reconciler) setHostnames(ctx context.Context, s stackSource, host string) error {
	for _, m := range s.members {
		orig := m.DeepCopyObject().(client.Object)
		if !s.setHostname(m, host) {
			continue
		}
		if err := r.client.Status().Patch(ctx, m, client.MergeFrom(orig)); err != nil {
			return fmt.Errorf("status of %s: %w", client.ObjectKeyFromObject(m), err)
		}
	}
	return nil
}
