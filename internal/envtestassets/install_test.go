package envtestassets

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/envtestassets/envtestindex"
)

// recordingBuild stands in for Ensure: it records the call and builds nothing.
type recordingBuild struct{ calls []BuildOptions }

func (r *recordingBuild) build(_ context.Context, o BuildOptions) (*Result, error) {
	r.calls = append(r.calls, o)
	return &Result{Dir: o.Dir, Built: []string{"kube-apiserver", "etcd"}}, nil
}

// closedURL is an index nobody listens on: the connection is refused at once, as for a machine
// without a route to the public index.
func closedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/envtest-releases.yaml"
}

// With no reachable index, Install says why in one line and takes the build, within 5 s.
func TestInstallFallsBackToTheBuild(t *testing.T) {
	for _, index := range []string{closedURL(t), "http://envtest-index.invalid/envtest-releases.yaml"} {
		var rb recordingBuild
		var progress bytes.Buffer
		dir := t.TempDir()
		start := time.Now()
		in, err := Install(context.Background(), InstallOptions{
			Fetch: FetchOptions{IndexURL: index, StoreDir: t.TempDir()},
			Build: BuildOptions{Dir: dir, Progress: &progress},
			build: rb.build,
		})
		took := time.Since(start)
		if err != nil {
			t.Fatal(err)
		}
		if len(rb.calls) != 1 || rb.calls[0].Dir != dir || in.How != "built" || in.Fallback == "" {
			t.Fatalf("%s: installed %+v after %d builds; want one build into %s, with the reason", index, in, len(rb.calls), dir)
		}
		lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], "building from source instead") || !strings.Contains(lines[0], in.Fallback) {
			t.Errorf("progress %q: want one line with the reason", progress.String())
		}
		if took > 5*time.Second {
			t.Errorf("%s: the fallback took %s, want under 5 s", index, took)
		}
	}
}

// --source builds without a request; an interrupted download builds nothing.
func TestInstallBuildsWithoutFetching(t *testing.T) {
	noFetch := func(context.Context, FetchOptions) (*Fetched, error) {
		t.Error("fetched")
		return nil, errors.New("fetched")
	}
	for _, o := range []InstallOptions{
		{Source: true, Build: BuildOptions{Dir: t.TempDir()}},
		{Source: true, Build: BuildOptions{Dir: t.TempDir(), With: []string{KubeControllerManager}}},
	} {
		var rb recordingBuild
		o.fetch, o.build = noFetch, rb.build
		if in, err := Install(context.Background(), o); err != nil || len(rb.calls) != 1 || in.Fallback != "" {
			t.Errorf("%+v, %v after %d builds; want one build, no fallback", in, err, len(rb.calls))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var rb recordingBuild
	_, err := Install(ctx, InstallOptions{Build: BuildOptions{Dir: t.TempDir()}, build: rb.build,
		fetch: func(ctx context.Context, _ FetchOptions) (*Fetched, error) { return nil, ctx.Err() }})
	if !errors.Is(err, context.Canceled) || len(rb.calls) != 0 {
		t.Errorf("interrupted: %v after %d builds; want context.Canceled, no build", err, len(rb.calls))
	}
}

// With a directory, a download is linked into it; a second Install uses the links without a
// request or a build.
func TestInstallLinksADownloadIntoADirectory(t *testing.T) {
	srv := newIndexServer(t, envtestindex.Archive(t, envtestindex.FakeBinaries()))
	var rb recordingBuild
	dir := filepath.Join(t.TempDir(), "k8s", Version)
	o := InstallOptions{Fetch: fetchOptions(t, srv), Build: BuildOptions{Dir: dir}, build: rb.build}
	in, err := Install(context.Background(), o)
	if err != nil || in.How != "downloaded" || in.Dir != dir || in.Version != newestSupported {
		t.Fatalf("%+v, %v; want %s downloaded into %s", in, err, newestSupported, dir)
	}
	for _, b := range []string{"kube-apiserver", "etcd", "kubectl"} {
		target, err := os.Readlink(filepath.Join(dir, b))
		if err != nil || target != filepath.Join(storeItemDir(o.Fetch.StoreDir, newestSupported), b) {
			t.Errorf("%s links to %q, %v; want the store's", b, target, err)
		}
	}
	if got, err := In(dir, "test"); err != nil || got != dir {
		t.Errorf("In(%s): %s, %v", dir, got, err)
	}
	served := srv.Requests.Load()
	again, err := Install(context.Background(), o)
	if err != nil || again.How != "up to date" || srv.Requests.Load() != served || len(rb.calls) != 0 {
		t.Errorf("second install %+v, %v, %d requests, %d builds; want up to date, none",
			again, err, srv.Requests.Load()-served, len(rb.calls))
	}
}

// Binaries built and stamped in the directory are used without a request.
func TestInstallUsesABuiltDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := Ensure(context.Background(), fakeOptions(dir, &fakeBuilder{}, nil)); err != nil {
		t.Fatal(err)
	}
	var rb recordingBuild
	in, err := Install(context.Background(), InstallOptions{Build: BuildOptions{Dir: dir}, build: rb.build,
		fetch: func(context.Context, FetchOptions) (*Fetched, error) {
			t.Error("fetched")
			return nil, errors.New("fetched")
		}})
	if err != nil || in.How != "up to date" || in.Dir != dir || len(rb.calls) != 0 {
		t.Errorf("%+v, %v after %d builds; want %s up to date", in, err, len(rb.calls), dir)
	}
}

// Optional binaries are built beside a download, which is linked into the directory, and without
// kube-apiserver and etcd; when the download fails, all of them are built.
func TestInstallBuildsOptionalBinariesBesideADownload(t *testing.T) {
	srv := newIndexServer(t, envtestindex.Archive(t, envtestindex.FakeBinaries()))
	dir := t.TempDir()
	var rb recordingBuild
	in, err := Install(context.Background(), InstallOptions{Fetch: fetchOptions(t, srv),
		Build: BuildOptions{Dir: dir, With: []string{KubeControllerManager}}, build: rb.build})
	if err != nil || !isLinked(dir) || len(rb.calls) != 1 || !rb.calls[0].withOnly || in.How != "downloaded, built "+KubeControllerManager {
		t.Fatalf("%+v, %v, builds %+v; want the download linked and only %s built", in, err, rb.calls, KubeControllerManager)
	}
	if want, _ := rb.calls[0].wanted(); len(want) != 1 || want[0].name != KubeControllerManager {
		t.Errorf("the build wants %v", want)
	}
	rb = recordingBuild{}
	in, err = Install(context.Background(), InstallOptions{Fetch: FetchOptions{IndexURL: closedURL(t), StoreDir: t.TempDir()},
		Build: BuildOptions{Dir: t.TempDir(), With: []string{KubeControllerManager}}, build: rb.build})
	if err != nil || len(rb.calls) != 2 || rb.calls[1].withOnly || in.Fallback == "" {
		t.Fatalf("%+v, %v, builds %+v; want the fallback, then everything built", in, err, rb.calls)
	}
}
