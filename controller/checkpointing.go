package controller

import (
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
)

// Reasons of tgb_checkpoint_resets_total.
const (
	resetTargetsChanged      = "targets_changed"
	resetNetworking          = "networking_changed"
	resetNetworkingError     = "networking_error"
	resetAWSError            = "aws_error"
	resetGatePending         = "readiness_gate_pending"
	resetServiceNotFound     = "service_not_found"
	resetDeferred            = "deferred"
	resetEndpointsIncomplete = "endpoints_incomplete"
	resetServicePortNotFound = "service_port_not_found"
	resetTargetGroupNotFound = "target_group_not_found"
	resetResumeMismatch      = "resume_mismatch"
)

// resetCheckpoint clears a stored checkpoint (no-op when none is stored or checkpointing is off).
func (c *Controller) resetCheckpoint(ctx context.Context, tgb *v1beta1.TargetGroupBinding, reason string) error {
	if c.codec == nil || !checkpoint.IsSet(tgb.Annotations) {
		return nil
	}
	if reason != resetDeferred && reason != resetServiceNotFound && c.opts.Mutant == MutantNoResetBeforeMutation {
		return nil
	}
	if err := c.patchAnnotations(ctx, tgb, c.codec.Reset(c.opts.Clock.Now())); err != nil {
		return fmt.Errorf("resetting checkpoint: %w", err)
	}
	c.metrics.CheckpointResets.WithLabelValues(reason).Inc()
	c.log.V(1).Info("checkpoint reset", "targetGroupBinding", client.ObjectKeyFromObject(tgb), "reason", reason)
	return nil
}

// saveCheckpoint stores cp after a fully successful reconcile (skipped when already stored).
func (c *Controller) saveCheckpoint(ctx context.Context, tgb *v1beta1.TargetGroupBinding, cp checkpoint.Checkpoint) error {
	if c.codec == nil || c.codec.Matches(tgb.Annotations, cp) {
		return nil
	}
	if err := c.patchAnnotations(ctx, tgb, c.codec.Save(cp, c.opts.Clock.Now())); err != nil {
		return fmt.Errorf("saving checkpoint: %w", err)
	}
	return nil
}

// patchAnnotations sends a JSON merge patch of annotations (nil deletes) and refreshes tgb.
func (c *Controller) patchAnnotations(ctx context.Context, tgb *v1beta1.TargetGroupBinding, values map[string]*string) error {
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": values}})
	if err != nil {
		return err
	}
	return c.client.Patch(ctx, tgb, client.RawPatch(types.MergePatchType, body))
}
