package sim

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/objects"
)

// A kubeconfig cluster's cleanup must be able to delete an object group's objects whose controller
// left a finalizer and is gone: releaseObjects drops every finalizer of the run's objects.
func TestReleaseObjectsDropsFinalizers(t *testing.T) {
	testenv.RequireAssets(t)
	e, err := testenv.Start("objects/testdata/crds")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Stop() })
	ctx := context.Background()
	cat, err := objects.LoadCatalog("objects/testdata/crds")
	if err != nil {
		t.Fatal(err)
	}
	f, err := objects.Compile(cat, []objects.Group{{Name: "widgets", Count: 3,
		Template: []byte(`{"apiVersion":"test.restartsim.io/v1","kind":"Widget","metadata":{"name":"w-{{.Index}}","finalizers":["example.com/held"]},"spec":{"name":"w{{.Index}}"}}`)}}, "fleet.objects")
	if err != nil {
		t.Fatal(err)
	}
	ns := "release"
	if err := e.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	env := objects.Env{RunID: "t", Region: "us-west-2", VpcID: "vpc-1", ClusterName: "c", Namespaces: []string{ns}}
	if err := f.CreateGroup(ctx, e.Client, env, "widgets", objects.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		u, _ := f.Render(env, "widgets", i)
		if err := e.Client.Delete(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := e.Client.Get(ctx, types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}, u); err != nil || len(u.GetFinalizers()) == 0 {
			t.Fatalf("widget %d after its deletion: %v, finalizers %v: want it held by its finalizer", i, err, u.GetFinalizers())
		}
	}
	if err := releaseObjects(ctx, e.Client, f, []string{ns}); err != nil {
		t.Fatal(err)
	}
	// Held by their finalizer until released, the deleted objects are now gone.
	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		for i := range 3 {
			u, _ := f.Render(env, "widgets", i)
			if err := e.Client.Get(ctx, types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}, u); !apierrors.IsNotFound(err) {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Fatalf("the widgets were not deleted once released: %v", err)
	}
}
