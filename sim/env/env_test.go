package env

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		data, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		s := string(data)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		comm, f := s[open+1:end], strings.Fields(s[end+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(os.Getpid()) || comm != "kube-apiserver" && comm != "etcd" {
			continue
		}
		environ, err := os.ReadFile(filepath.Join(filepath.Dir(st), "environ"))
		if err != nil {
			t.Fatal(err)
		}
		got[comm] = ""
		for _, kv := range bytes.Split(environ, []byte{0}) {
			if v, ok := strings.CutPrefix(string(kv), name+"="); ok {
				got[comm] = v
			}
		}
	}
	return got
}
