package objects

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/internal/testwait"
)

// TestCreateAndDeleteWhileTheControllerIsDown makes Widgets and deletes others while their controller is
// down, then starts it: each change is applied once fakeaws's state (and the API server) show it — a new
// Widget's target group, a deleted Widget gone through its finalizer with its target group — and its first
// meaningful mutation is the controller's CreateTargetGroup or DeleteTargetGroup of that very resource.
func TestCreateAndDeleteWhileTheControllerIsDown(t *testing.T) {
	env := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := env.Client
	run := Env{RunID: "lifecycle", Region: "us-west-2", ClusterName: "c", Namespaces: []string{"lifecycle-a", "lifecycle-b"}}
	for _, ns := range run.Namespaces {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	srv, api := startFakeAWS(t)
	run.VpcID = srv.DefaultVPCID()
	ctl := &widgetController{c: c, api: api, vpc: run.VpcID, namespaces: run.Namespaces}

	f := compile(t, widgets(6))
	if err := createAll(ctx, f, c, run, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stop := ctl.start(ctx)
	waitReady(ctx, t, f, c, run, srv, "widgets", testwait.Scale(t, 30*time.Second))
	stop()

	// The controller is down: three Widgets are made and two deleted.
	cr, err := f.CompileCreate(Create{Group: "widgets", Mutations: []string{"CreateTargetGroup"}}, "timeline[1]", nil)
	if err != nil {
		t.Fatal(err)
	}
	created, err := cr.Apply(ctx, c, run, ChurnOptions{Count: 3, FirstSeq: 1, AWS: srv})
	if err != nil {
		t.Fatal(err)
	}
	dl, err := f.CompileDelete(Delete{Group: "widgets", Mutations: []string{"DeleteTargetGroup"}}, "timeline[2]")
	if err != nil {
		t.Fatal(err)
	}
	deleted, err := dl.Apply(ctx, c, run, ChurnOptions{Count: 2, Rand: rand.New(rand.NewPCG(5, 5)), FirstSeq: 4, AWS: srv})
	if err != nil {
		t.Fatal(err)
	}
	changes := append(created, deleted...)
	for _, ch := range deleted {
		if ch.ResourceID == "" {
			t.Fatalf("delete of %s: its target group's ARN is not known", ch.Key)
		}
	}
	objs, snap := observeIn(t, f, c, run, srv)
	for _, ch := range changes {
		if ok, _ := ch.Applied(snap); ok {
			t.Fatalf("%s of %s applied while the controller is down", ch.Kind, ch.Key)
		}
	}
	st := f.Check(objs, snap)
	if g := st.Groups[0]; g.Count != 7 || g.Present != 7 || g.Ready != 4 || countMessages(st.Violations, "still exists") != 2 {
		t.Fatalf("status %+v, violations %v; want 7 objects, 4 ready, the 2 deleted still held by their finalizer", g, st.Violations)
	}

	// The controller starts again and applies every change.
	mark := srv.Recorder().Len()
	defer ctl.start(ctx)()
	testwait.UntilDetail(t, 30*time.Second, "every create and delete applied", func() (bool, string) {
		_, snap := observeIn(t, f, c, run, srv)
		for _, ch := range changes {
			if ok, err := ch.Applied(snap); !ok {
				return false, fmt.Sprintf("%s of %s: %v %s", ch.Kind, ch.Key, err, ch.Explain(snap))
			}
			ch.ResolveResourceID(snap)
		}
		return true, ""
	})
	calls := srv.Recorder().Since(mark)
	for _, ch := range changes {
		n := 0
		for _, call := range calls {
			if ch.IsMutation(call) {
				n++
			}
		}
		if ch.ResourceID == "" || n != 1 {
			t.Errorf("%s of %s (ARN %q): %d calls are its mutation, want 1", ch.Kind, ch.Key, ch.ResourceID, n)
		}
	}
	objs, snap = observeIn(t, f, c, run, srv)
	if st := f.Check(objs, snap); !st.Holds() || st.Groups[0].Count != 7 || st.Groups[0].Ready != 7 {
		t.Errorf("steady state after the changes: %+v %v", st.Groups[0], st.Violations)
	}
}

func countMessages(vs []Violation, fragment string) int {
	n := 0
	for _, v := range vs {
		if strings.Contains(v.Message, fragment) {
			n++
		}
	}
	return n
}
