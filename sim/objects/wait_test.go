package objects

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// configMaps is a group of ConfigMaps, ready when data.ready is "yes".
func configMaps(name string, after ...string) Group {
	return Group{Name: name, Count: 2, After: after, Ready: `object.data.ready == "yes"`,
		Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "` + name + `-{{.Index}}"}, "data": {"ready": "no"}}`)}
}

func TestCreateWaitsForTheGroupsItComesAfter(t *testing.T) {
	ctx := context.Background()
	f := compile(t, configMaps("first"), configMaps("second", "first"))
	c := fake.NewClientBuilder().Build()
	if err := f.Create(ctx, c, testEnv, CreateOptions{}); err == nil || !strings.Contains(err.Error(), "WaitReady is needed") {
		t.Fatalf("Create without WaitReady = %v, want it asked for", err)
	}

	var waited []string
	err := f.Create(ctx, c, testEnv, CreateOptions{WaitReady: func(ctx context.Context, groups []string) error {
		waited = append(waited, groups...)
		objs, err := f.List(ctx, c, testEnv, groups...)
		if err != nil {
			return err
		}
		if n := len(objs); n != 2 {
			t.Errorf("waiting for %v: %d objects exist, want 2", groups, n)
		}
		return nil
	}})
	if err != nil || strings.Join(waited, ",") != "first" {
		t.Fatalf("Create = %v after waiting for %v, want first waited for", err, waited)
	}
	if objs, _ := f.List(ctx, c, testEnv); len(objs) != 4 {
		t.Errorf("%d objects exist, want 4", len(objs))
	}
}

func TestReadyWaiterSaysWhatIsNotReady(t *testing.T) {
	ctx := context.Background()
	f := compile(t, configMaps("first"))
	c := fake.NewClientBuilder().Build()
	if err := f.Create(ctx, c, testEnv, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	err := f.ReadyWaiter(c, testEnv, nil, 10*time.Millisecond)(short, []string{"first"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting for objects never ready = %v, want the deadline", err)
	}
	for _, want := range []string{"first: 0 of 2 ready, 2 exist", `object.data.ready = "no"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v does not say %q", err, want)
		}
	}
}
