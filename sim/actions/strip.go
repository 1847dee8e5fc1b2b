package actions

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/observe"
)

// checkpointTimestampAnnotation is upstream LBC's second checkpoint annotation (the compact form
// keeps only observe.CheckpointAnnotation).
const checkpointTimestampAnnotation = "elbv2.k8s.aws/checkpoint-timestamp"

// stripPatch removes both checkpoint annotations (a JSON merge patch's null deletes a key).
var stripPatch = client.RawPatch(types.MergePatchType,
	[]byte(`{"metadata":{"annotations":{"`+observe.CheckpointAnnotation+`":null,"`+checkpointTimestampAnnotation+`":null}}}`))

// stripCheckpoints removes the checkpoint annotations from every binding of the fleet that has
// one, with the harness's identity, and records a stripCheckpoints event spanning the writes.
func (e *Executor) stripCheckpoints(ctx context.Context) error {
	start := e.clock.Now()
	var keys []types.NamespacedName
	for _, ns := range e.fleet.Namespaces {
		var list metav1.PartialObjectMetadataList
		list.SetGroupVersionKind(v1beta1.GroupVersion.WithKind("TargetGroupBindingList"))
		if err := e.client.List(ctx, &list, client.InNamespace(ns)); err != nil {
			return fmt.Errorf("stripping checkpoints: listing the bindings of %s: %w", ns, err)
		}
		for _, m := range list.Items {
			a := m.GetAnnotations()
			if _, ok := a[observe.CheckpointAnnotation]; ok {
				keys = append(keys, types.NamespacedName{Namespace: m.Namespace, Name: m.Name})
			} else if _, ok := a[checkpointTimestampAnnotation]; ok {
				keys = append(keys, types.NamespacedName{Namespace: m.Namespace, Name: m.Name})
			}
		}
	}
	err := parallel(len(keys), mutationWorkers, func(i int) error {
		m := &metav1.PartialObjectMetadata{}
		m.SetGroupVersionKind(v1beta1.GroupVersion.WithKind("TargetGroupBinding"))
		m.Namespace, m.Name = keys[i].Namespace, keys[i].Name
		if err := e.client.Patch(ctx, m, stripPatch); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("stripping the checkpoint of %s: %w", keys[i], err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	end := e.clock.Now()
	e.event("stripCheckpoints", fmt.Sprintf("%d bindings", len(keys)), start, &end)
	e.log.Info("checkpoints stripped", "bindings", len(keys), "took", end.Sub(start).Round(time.Millisecond))
	return nil
}
