package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/objects"
	"github.com/restartsim/restartsim/sim/scenario"
)

// createFirstObjects creates the groups that come after no other.
func createFirstObjects(ctx context.Context, o runConfig, sc *scenario.Scenario, c client.Client, f *objects.CompiledGroups, objEnv objects.Env, log logr.Logger) error {
	creating := startPhase(o.Progress, "creating the object groups")
	defer creating.End()
	start := time.Now()
	for _, g := range f.Order()[0] {
		if err := f.CreateGroup(ctx, c, objEnv, g, objects.CreateOptions{Concurrency: sc.Fleet.Concurrency}); err != nil {
			return fmt.Errorf("creating the object groups: %w", err)
		}
	}
	log.Info("object groups created", "groups", f.Order()[0], "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// objectsRunID is the {{.RunID}} of the groups' templates: short, and unique to what key names.
func objectsRunID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:4])
}

// objectEnv is what the groups' templates see: the run's ID, the fleet's namespaces, VPC and
// subnets.
func objectEnv(cloud backend.Backend, aws objects.AWSState, sc *scenario.Scenario, clusterName string, namespaces []string, runID string) (objects.Env, error) {
	vpc, err := cloud.DefaultVPCID()
	if err != nil {
		return objects.Env{}, err
	}
	env := objects.Env{RunID: runID, Region: sc.AWS.Region, VpcID: vpc, ClusterName: clusterName, Namespaces: namespaces}
	if l, ok := aws.(interface{ Subnets() []fakeaws.Subnet }); ok {
		for _, sn := range l.Subnets() {
			if sn.VPCID == vpc {
				env.SubnetIDs = append(env.SubnetIDs, sn.ID)
			}
		}
	}
	return env, nil
}

// releaseObjects drops the finalizers of the groups' objects in namespaces, so that a kubeconfig
// cluster can delete them once the controller that would have released them is gone.
func releaseObjects(ctx context.Context, c client.Client, f *objects.CompiledGroups, namespaces []string) error {
	for _, g := range f.Groups() {
		gvk := f.Kind(g)
		for _, ns := range namespaces {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := c.List(ctx, l, client.InNamespace(ns), client.HasLabels{objects.GroupLabel}); err != nil {
				return fmt.Errorf("listing group %s in %s: %w", g, ns, err)
			}
			for i := range l.Items {
				o := &l.Items[i]
				if len(o.GetFinalizers()) == 0 {
					continue
				}
				patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
				if err := c.Patch(ctx, o, patch); err != nil && !apierrors.IsNotFound(err) {
					return fmt.Errorf("dropping the finalizers of %s %s/%s: %w", gvk.Kind, o.GetNamespace(), o.GetName(), err)
				}
			}
		}
	}
	return nil
}
