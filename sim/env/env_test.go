package env

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestGoMemLimitReachesTheControlPlane starts envtest with and without GoMemLimit and reads the
// environment its kube-apiserver and etcd were started with.
func TestGoMemLimitReachesTheControlPlane(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc")
	}
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set for the whole test process")
	}
	for _, limit := range []int64{0, 1 << 30} {
		e, err := Start(context.Background(), Options{WorkDir: t.TempDir(), GoMemLimit: limit})
		if err != nil {
			t.Fatal(err)
		}
		got := childEnv(t, "GOMEMLIMIT")
		_ = e.Stop()
		want := ""
		if limit > 0 {
			want = strconv.FormatInt(limit, 10)
		}
		if len(got) != 2 || got["kube-apiserver"] != want || got["etcd"] != want {
			t.Errorf("GoMemLimit %d: children's GOMEMLIMIT %v, want %q for kube-apiserver and etcd", limit, got, want)
		}
		if v, ok := os.LookupEnv("GOMEMLIMIT"); ok {
			t.Fatalf("GOMEMLIMIT=%s left in the test process", v)
		}
	}
}

// childEnv returns the variable's value in each kube-apiserver and etcd child of this process.
func childEnv(t *testing.T, name string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for _, p := range controlPlaneChildren() {
		environ, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "environ"))
		if err != nil {
			t.Fatal(err)
		}
		got[p.name] = ""
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if v, ok := strings.CutPrefix(string(kv), name+"="); ok {
				got[p.name] = v
			}
		}
	}
	return got
}

// TestStopCompactedDropsHistory rewrites one large ConfigMap many times, so etcd holds its
// history, then stops compacted: the database shrinks to about one copy, and an environment
// started on the data directory serves the object as before.
func TestStopCompactedDropsHistory(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "etcd")
	e, err := Start(ctx, Options{WorkDir: t.TempDir(), EtcdDataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Stop(); err != nil {
			t.Logf("stopping the environment: %v", err)
		}
	}()
	c, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "history", Namespace: "default"}}
	for i := range 100 {
		cm.Data = map[string]string{"v": strings.Repeat(strconv.Itoa(i%10), 100<<10)}
		if i == 0 {
			cm, err = c.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
		} else {
			cm, err = c.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	before, after, err := e.StopCompacted(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("etcd database before %+v, after %+v", before, after)
	if before.InUse < 5<<20 || after.File > before.File/3 || after.InUse > after.File {
		t.Fatalf("etcd database before %+v, after %+v: want ≥ 5 MiB of history before and a third or less of the file after", before, after)
	}
	if got := childEnv(t, "PATH"); len(got) != 0 {
		t.Fatalf("still running after StopCompacted: %v", got)
	}
	again, err := Start(ctx, Options{WorkDir: t.TempDir(), EtcdDataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := again.Stop(); err != nil {
			t.Logf("stopping the environment: %v", err)
		}
	}()
	c, err = kubernetes.NewForConfig(again.Config)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.CoreV1().ConfigMaps("default").Get(ctx, "history", metav1.GetOptions{})
	if err != nil || got.Data["v"] != cm.Data["v"] {
		t.Fatalf("after compaction: %v, data kept %v", err, err == nil && got.Data["v"] == cm.Data["v"])
	}
}
