package nodesim_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/envtestassets"
	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/nodesim"
)

// The real kube-scheduler binds a pending pod to the Node of a running instance, whose simulated
// kubelet runs it; when the instance terminates, the Node and the pod go away.
func TestSchedulerBindsPodsToInstanceNodes(t *testing.T) {
	testenv.RequireAssets(t)
	if dir, err := envtestassets.Dir(""); err != nil {
		t.Skip(err)
	} else if _, err := os.Stat(filepath.Join(dir, envtestassets.KubeScheduler)); err != nil {
		t.Skipf("no kube-scheduler in %s: run restartsim assets --with kube-scheduler", dir)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	work := t.TempDir()
	e, err := env.Start(ctx, env.Options{WorkDir: work, Scheduler: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Stop() }()
	c, err := client.New(e.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakeaws.New(fakeaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close() }()
	userData, err := os.ReadFile("testdata/al2023.mime")
	if err != nil {
		t.Fatal(err)
	}
	in := fakeaws.Instance{ID: "i-0a1b2c3d4e5f60718", PrivateIP: "10.0.3.7", AvailabilityZone: "us-west-2b",
		InstanceType: "c5.xlarge", UserData: base64.StdEncoding.EncodeToString(userData)}
	if _, err := srv.SeedInstance(in); err != nil {
		t.Fatal(err)
	}
	sim := nodesim.New(c, backend.Local{Server: srv}, nodesim.Options{Region: "us-west-2", JoinDelay: 200 * time.Millisecond, Poll: 50 * time.Millisecond})
	done := make(chan struct{})
	go func() { defer close(done); sim.Run(ctx) }()
	defer func() { cancel(); <-done }()

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pending"},
		Spec: corev1.PodSpec{
			// The user data registers the node with Karpenter's unregistered taint, which Karpenter
			// would remove; nothing here does.
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{Name: "app", Image: "nginx", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}},
		}}
	if err := c.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	node := nodesim.NodeName(in.PrivateIP, "us-west-2")
	testwait.UntilDetail(t, 60*time.Second, "the pod scheduled, running and ready on the instance's node", func() (bool, string) {
		if err := c.Get(ctx, client.ObjectKeyFromObject(pod), pod); err != nil {
			return false, err.Error()
		}
		ok := pod.Spec.NodeName == node && pod.Status.Phase == corev1.PodRunning && kubesim.ConditionTrue(pod, corev1.PodReady)
		return ok, "node " + pod.Spec.NodeName + ", phase " + string(pod.Status.Phase)
	})

	in.State = "terminated"
	if _, err := srv.SeedInstance(in); err != nil {
		t.Fatal(err)
	}
	testwait.UntilDetail(t, 30*time.Second, "the terminated instance's node and pod gone", func() (bool, string) {
		nodeErr := c.Get(ctx, client.ObjectKey{Name: node}, &corev1.Node{})
		podErr := c.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{})
		return apierrors.IsNotFound(nodeErr) && apierrors.IsNotFound(podErr), "node: " + errText(nodeErr) + "; pod: " + errText(podErr)
	})
}

func errText(err error) string {
	if err == nil {
		return "present"
	}
	return err.Error()
}
