package observe

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/providerid"
	"github.com/restartsim/restartsim/results"
)

// nodeClaimList is Karpenter's NodeClaim list: a claim names its instance in status.providerID from
// the launch on, before the instance's Node registers.
var nodeClaimList = schema.GroupVersionKind{Group: "karpenter.sh", Version: "v1", Kind: "NodeClaimList"}

// CheckInstances makes every check also require each pending or running EC2 instance a controller
// launched to be accounted for by the cluster: named by a Node's spec.providerID or a NodeClaim's
// status.providerID (read through c). Any other is leaked capacity: AWS bills it and no one in the
// cluster will use it or take it down. Only for runs whose instances join as Nodes (cluster.instanceNodes).
func (k *Checker) CheckInstances(c client.Reader) { k.instances = c }

// checkInstances adds the leaked instances.
func (k *Checker) checkInstances(ctx context.Context, f *findings) error {
	if k.instances == nil {
		return nil
	}
	insts, err := k.backend.Instances()
	if err != nil {
		return fmt.Errorf("EC2 instances: %w", err)
	}
	ids, err := ProviderIDs(ctx, k.instances)
	if err != nil {
		return err
	}
	for _, in := range LeakedInstances(insts, ids) {
		f.inv.LeakedInstances++
		f.add("instance "+in.ID, results.ViolationLeakedInstance,
			fmt.Sprintf("%s %s in %s is named by no Node and no NodeClaim", in.State, in.InstanceType, in.AvailabilityZone))
	}
	return nil
}

// ProviderIDs are the provider IDs the cluster's Nodes (spec.providerID) and Karpenter NodeClaims
// (status.providerID) carry; a cluster that does not serve NodeClaims has only the Nodes'.
func ProviderIDs(ctx context.Context, c client.Reader) ([]string, error) {
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		return nil, fmt.Errorf("listing nodes: %w", err)
	}
	var ids []string
	for _, n := range nodes.Items {
		ids = append(ids, n.Spec.ProviderID)
	}
	claims := &unstructured.UnstructuredList{}
	claims.SetGroupVersionKind(nodeClaimList)
	switch err := c.List(ctx, claims); {
	case meta.IsNoMatchError(err) || apierrors.IsNotFound(err):
		return ids, nil
	case err != nil:
		return nil, fmt.Errorf("listing NodeClaims: %w", err)
	}
	for _, cl := range claims.Items {
		id, _, _ := unstructured.NestedString(cl.Object, "status", "providerID")
		ids = append(ids, id)
	}
	return ids, nil
}

// LeakedInstances are the pending or running instances of insts that no provider ID names
// (aws:///<zone>/<instance-id>), in ID order. Seeded instances (never launched
// through the API, so never pending: the harness's own fixtures) are not capacity anyone launched.
func LeakedInstances(insts []fakeaws.Instance, providerIDs []string) []fakeaws.Instance {
	named := make(map[string]bool, len(providerIDs))
	for _, p := range providerIDs {
		if id := providerid.InstanceID(p); id != "" {
			named[id] = true
		}
	}
	var out []fakeaws.Instance
	for _, in := range insts {
		launched := !in.RunningAt.IsZero()
		if launched && (in.State == "pending" || in.State == "running") && !named[in.ID] {
			out = append(out, in)
		}
	}
	slices.SortFunc(out, func(a, b fakeaws.Instance) int { return strings.Compare(a.ID, b.ID) })
	return out
}
