package envtestassets

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBuilder stands in for go build: it writes a small file per target and counts its calls.
type fakeBuilder struct {
	mu    sync.Mutex
	calls []string
	// gate, when set, is where each build blocks until it is closed; entered is closed when the
	// first build starts.
	gate, entered chan struct{}
	fail          error
}

func (f *fakeBuilder) build(_ context.Context, goBin string, tg target, out string, _ io.Writer) error {
	f.mu.Lock()
	f.calls = append(f.calls, tg.name)
	first := len(f.calls) == 1
	f.mu.Unlock()
	if first && f.entered != nil {
		close(f.entered)
	}
	if f.gate != nil {
		<-f.gate
	}
	if err := os.WriteFile(out, []byte("#!/bin/sh\n# "+tg.name+" by "+goBin+"\n"), 0o644); err != nil {
		return err
	}
	return f.fail
}

func (f *fakeBuilder) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

func fakeOptions(dir string, f *fakeBuilder, progress io.Writer) BuildOptions {
	return BuildOptions{Dir: dir, Progress: progress, build: f.build, lockPoll: time.Millisecond,
		lookGo: func() (string, error) { return "/fake/go", nil }}
}

// leftovers lists the files in dir besides the binaries, their stamps and the lock.
func leftovers(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var odd []string
	for _, e := range entries {
		n := e.Name()
		if n == ".lock" || strings.HasSuffix(n, ".stamp") {
			continue
		}
		if _, ok := targetNamed(n); !ok {
			odd = append(odd, n)
		}
	}
	return odd
}

func TestEnsureBuildsOnceThenTakesTheFastPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "k8s", Version)
	f := &fakeBuilder{}
	var progress bytes.Buffer
	res, err := Ensure(context.Background(), fakeOptions(dir, f, &progress))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"kube-apiserver", "etcd"}; !slices.Equal(f.called(), want) || !slices.Equal(res.Built, want) {
		t.Fatalf("built %v (result %v), want %v", f.called(), res.Built, want)
	}
	for _, want := range []string{"building kube-apiserver v" + Version, "about 5 min", "building etcd v" + EtcdVersion, "built etcd in"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	for _, b := range binaries {
		st, err := os.Stat(filepath.Join(dir, b))
		if err != nil || st.Mode().Perm()&0o111 == 0 {
			t.Errorf("%s: %v, mode %v; want an executable", b, err, st)
		}
	}
	if odd := leftovers(t, dir); len(odd) > 0 {
		t.Errorf("temporary files left: %v", odd)
	}

	// Second run: no go lookup, no build, well under a second.
	second := BuildOptions{Dir: dir,
		build: func(context.Context, string, target, string, io.Writer) error {
			t.Error("the second run built")
			return nil
		},
		lookGo: func() (string, error) { t.Error("the second run looked for go"); return "", exec.ErrNotFound },
	}
	start := time.Now()
	res, err = Ensure(context.Background(), second)
	if took := time.Since(start); err != nil || len(res.Built)+len(res.Recorded) > 0 || took > time.Second {
		t.Fatalf("second Ensure = %+v, %v in %s; want nothing done, under 1 s", res, err, took)
	}
}

func TestEnsureRebuildsAReplacedBinaryOnly(t *testing.T) {
	dir := t.TempDir()
	f := &fakeBuilder{}
	if _, err := Ensure(context.Background(), fakeOptions(dir, f, nil)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "etcd"), []byte("something else, longer than before\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := Ensure(context.Background(), fakeOptions(dir, f, nil))
	if err != nil || !slices.Equal(res.Built, []string{"etcd"}) {
		t.Fatalf("Ensure after etcd changed = %+v, %v; want etcd rebuilt", res, err)
	}
	if got := f.called(); len(got) != 3 {
		t.Fatalf("builds = %v; want kube-apiserver, etcd, etcd", got)
	}
}

func TestEnsureWith(t *testing.T) {
	f := &fakeBuilder{}
	o := fakeOptions(t.TempDir(), f, nil)
	o.With = []string{KubeControllerManager}
	if _, err := Ensure(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if want := []string{"kube-apiserver", KubeControllerManager, "etcd"}; !slices.Equal(f.called(), want) {
		t.Fatalf("built %v, want %v", f.called(), want)
	}
	o.With = []string{KubeScheduler}
	if _, err := Ensure(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if want := []string{"kube-apiserver", KubeControllerManager, "etcd", KubeScheduler}; !slices.Equal(f.called(), want) {
		t.Fatalf("built %v, want %v (kube-scheduler added to the built ones)", f.called(), want)
	}
	o.With = []string{"kubelet"}
	if _, err := Ensure(context.Background(), o); err == nil || !strings.Contains(err.Error(), "kubelet") {
		t.Fatalf("With kubelet: err = %v; want one naming it", err)
	}
}

func TestEnsureWithoutGo(t *testing.T) {
	dir := t.TempDir()
	f := &fakeBuilder{}
	o := fakeOptions(dir, f, nil)
	o.lookGo = func() (string, error) { return "", &exec.Error{Name: "go", Err: exec.ErrNotFound} }
	_, err := Ensure(context.Background(), o)
	if !errors.Is(err, ErrNoGo) {
		t.Fatalf("err = %v; want ErrNoGo", err)
	}
	for _, want := range []string{"go.dev/dl", EnvVar, "executable file not found"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(f.called()) > 0 {
		t.Errorf("built %v without go", f.called())
	}
}

func TestEnsureFailedBuildLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f := &fakeBuilder{fail: errors.New("exit status 1")}
	if _, err := Ensure(context.Background(), fakeOptions(dir, f, nil)); err == nil || !strings.Contains(err.Error(), "building kube-apiserver") {
		t.Fatalf("err = %v; want the failed build named", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "kube-apiserver")); !os.IsNotExist(err) {
		t.Errorf("a failed build left kube-apiserver: %v", err)
	}
	if odd := leftovers(t, dir); len(odd) > 0 {
		t.Errorf("temporary files left: %v", odd)
	}
}

// A killed build's temporary file is removed by the next build, which holds the lock.
func TestEnsureRemovesAKilledBuildsTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".kube-apiserver.123.tmp"), []byte("half a binary"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(context.Background(), fakeOptions(dir, &fakeBuilder{}, nil)); err != nil {
		t.Fatal(err)
	}
	if odd := leftovers(t, dir); len(odd) > 0 {
		t.Errorf("left: %v", odd)
	}
}

// signalWriter closes seen when a line containing want is written.
type signalWriter struct {
	want string
	once sync.Once
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// Two Ensure calls on one directory: the second waits for the first's lock, then finds the
// binaries built and builds nothing.
func TestEnsureConcurrentCallsBuildOnce(t *testing.T) {
	dir := t.TempDir()
	f := &fakeBuilder{gate: make(chan struct{}), entered: make(chan struct{})}
	first := make(chan error, 1)
	go func() { _, err := Ensure(context.Background(), fakeOptions(dir, f, nil)); first <- err }()
	<-f.entered

	waiting := &signalWriter{want: "waiting for another restartsim assets", seen: make(chan struct{})}
	second := make(chan *Result, 1)
	go func() {
		res, err := Ensure(context.Background(), fakeOptions(dir, f, waiting))
		if err != nil {
			t.Error(err)
		}
		second <- res
	}()
	<-waiting.seen // the second call is blocked on the lock, not building
	if got := f.called(); len(got) != 1 {
		t.Fatalf("builds while the first holds the lock: %v", got)
	}
	close(f.gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if res := <-second; res == nil || len(res.Built) > 0 {
		t.Fatalf("second call = %+v; want nothing built", res)
	}
	if got := f.called(); !slices.Equal(got, []string{"kube-apiserver", "etcd"}) {
		t.Fatalf("builds = %v; want each binary once", got)
	}
}

func TestEnsureWaitingGivesUpWithTheContext(t *testing.T) {
	dir := t.TempDir()
	unlock, err := lockDir(context.Background(), dir, io.Discard, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	waiting := &signalWriter{want: "waiting", seen: make(chan struct{})}
	done := make(chan error, 1)
	go func() { _, err := Ensure(ctx, fakeOptions(dir, &fakeBuilder{}, waiting)); done <- err }()
	<-waiting.seen
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want context.Canceled", err)
	}
}

func TestDropDownloads(t *testing.T) {
	cases := []struct{ in, want string }{
		{"go: downloading k8s.io/api v0.37.2\nreal error\n", "real error\n"},
		{"a\ngo: downloading x v1\nb", "a\nb\n"},
		{"go: downloading x v1", ""},
		{"", ""},
	}
	for _, tc := range cases {
		var out bytes.Buffer
		d := &dropDownloads{w: &out}
		for _, b := range []byte(tc.in) { // byte by byte: lines split across writes
			if _, err := d.Write([]byte{b}); err != nil {
				t.Fatal(err)
			}
		}
		d.flush()
		if out.String() != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, out.String(), tc.want)
		}
	}
}
