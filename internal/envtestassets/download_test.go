package envtestassets

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/envtestassets/envtestindex"
)

// newestSupported is the release the fake index offers that Fetch must pick: 1.38.0 is newer but
// unsupported, 1.35.0 too old, 1.37.1 older.
var newestSupported = fmt.Sprintf("1.%d.5", versionMinor())

// newIndexServer offers newestSupported's archive, listed among newer, older and unsupported ones.
func newIndexServer(t testing.TB, archive []byte) *envtestindex.Server {
	minor := versionMinor()
	return envtestindex.New(t, newestSupported, []string{fmt.Sprintf("1.%d.0", minor+1), newestSupported,
		fmt.Sprintf("1.%d.1", minor), fmt.Sprintf("1.%d.0", OldestMinor-1)}, archive)
}

func fetchOptions(t testing.TB, s *envtestindex.Server) FetchOptions {
	return FetchOptions{IndexURL: s.IndexURL(), StoreDir: t.TempDir(), HeaderTimeout: 2 * time.Second}
}

// storeItemDir is where setup-envtest's store keeps version v for this platform.
func storeItemDir(root, v string) string {
	return filepath.Join(root, "k8s", fmt.Sprintf("%s-%s-%s", v, runtime.GOOS, runtime.GOARCH))
}

// A good archive lands in the store, the newest supported release, its files as packed; a second
// Fetch finds it there without a request.
func TestFetchInstallsTheNewestSupportedReleaseOnce(t *testing.T) {
	files := envtestindex.FakeBinaries()
	srv := newIndexServer(t, envtestindex.Archive(t, files))
	o := fetchOptions(t, srv)
	var progress bytes.Buffer
	o.Progress = &progress
	f, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := storeItemDir(o.StoreDir, newestSupported)
	if !f.Downloaded || f.Version != newestSupported || f.Dir != want {
		t.Fatalf("fetched %+v, want %s downloaded into %s", f, newestSupported, want)
	}
	for name, data := range files {
		got, err := os.ReadFile(filepath.Join(f.Dir, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %q, %v; want %q", name, got, err, data)
		}
		if st, err := os.Stat(filepath.Join(f.Dir, name)); err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable: %v", name, err)
		}
	}
	if out := progress.String(); !strings.Contains(out, "downloaded "+envtestindex.ArchiveName(newestSupported)) || !strings.Contains(out, "MiB/s") {
		t.Errorf("progress %q names neither the archive nor the rate", out)
	}
	if left, _ := filepath.Glob(filepath.Join(o.StoreDir, ".envtest-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	served := srv.Requests.Load()
	again, err := Fetch(context.Background(), o)
	if err != nil || again.Downloaded || again.Dir != want {
		t.Fatalf("second fetch %+v, %v; want %s from the store", again, err, want)
	}
	if n := srv.Requests.Load(); n != served {
		t.Errorf("second fetch made %d requests, want none", n-served)
	}
}

// Failures refuse the archive and install nothing: a wrong checksum, an archive cut in transit, a
// cut archive whose checksum the index agrees with, a missing archive, a missing index, an archive
// without etcd.
func TestFetchFailuresInstallNothing(t *testing.T) {
	good := envtestindex.Archive(t, envtestindex.FakeBinaries())
	noEtcd := envtestindex.FakeBinaries()
	delete(noEtcd, "etcd")
	for _, tc := range []struct {
		name  string
		setup func(s *envtestindex.Server)
		want  string
	}{
		{"wrong checksum", func(s *envtestindex.Server) { s.Hash = envtestindex.SHA512([]byte("other")) }, "checksum mismatch"},
		{"cut in transit", func(s *envtestindex.Server) {
			s.Serve = func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Length", fmt.Sprint(len(good)))
				_, _ = w.Write(good[:len(good)/2])
			}
		}, "unexpected EOF"},
		{"cut at the mirror", func(s *envtestindex.Server) { s.Archive = good[:len(good)/2]; s.Hash = envtestindex.SHA512(s.Archive) }, "unpacking"},
		{"archive 404", func(s *envtestindex.Server) { s.Serve = http.NotFound }, "404"},
		{"index 404", func(s *envtestindex.Server) { s.Index = http.NotFound }, "404"},
		{"no etcd", func(s *envtestindex.Server) { s.Archive = envtestindex.Archive(t, noEtcd); s.Hash = "" }, "etcd not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newIndexServer(t, good)
			tc.setup(srv)
			o := fetchOptions(t, srv)
			_, err := Fetch(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
			if _, err := os.Stat(storeItemDir(o.StoreDir, newestSupported)); !os.IsNotExist(err) {
				t.Errorf("the release was installed: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(o.StoreDir, ".envtest-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
		})
	}
}

// A silent index, and an archive that stops sending, time out; an archive that keeps sending,
// slowly, for longer than the stall timeout does not.
func TestFetchTimeouts(t *testing.T) {
	good := envtestindex.Archive(t, envtestindex.FakeBinaries())
	const stall = 300 * time.Millisecond
	trickle := func(stopAfter int) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(len(good)))
			chunk := len(good)/10 + 1
			for i, sent := 0, 0; sent < len(good); i++ {
				if i == stopAfter {
					<-r.Context().Done() // the client gives up
					return
				}
				end := min(sent+chunk, len(good))
				_, _ = w.Write(good[sent:end])
				w.(http.Flusher).Flush()
				sent = end
				select {
				case <-r.Context().Done():
					return
				case <-time.After(stall / 6):
				}
			}
		}
	}
	for _, tc := range []struct {
		name  string
		setup func(s *envtestindex.Server)
		want  string // "" for success
	}{
		{"silent index", func(s *envtestindex.Server) {
			s.Index = func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
		}, "no index within"},
		{"silent archive", func(s *envtestindex.Server) {
			s.Serve = func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
		}, "no response within"},
		{"stalled archive", func(s *envtestindex.Server) { s.Serve = trickle(3) }, "stalled"},
		{"slow archive", func(s *envtestindex.Server) { s.Serve = trickle(-1) }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newIndexServer(t, good)
			tc.setup(srv)
			o := fetchOptions(t, srv)
			o.HeaderTimeout, o.StallTimeout = 500*time.Millisecond, stall
			var progress bytes.Buffer
			o.Progress, o.ProgressEvery = &progress, stall/3
			start := time.Now()
			f, err := Fetch(context.Background(), o)
			if tc.want == "" {
				if err != nil || !f.Downloaded {
					t.Fatalf("%+v, %v; want a download", f, err)
				}
				if !strings.Contains(progress.String(), "MiB so far") {
					t.Errorf("progress %q: no line of bytes and rate while it downloaded", progress.String())
				}
				if took := time.Since(start); took < stall {
					t.Errorf("the slow archive took %s, under the stall timeout: not slow enough to test it", took)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want one saying %q", err, tc.want)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("gave up after %s", took)
			}
		})
	}
}

// Lookup finds a release Fetch put into setup-envtest's default store.
func TestLookupFindsAFetchedRelease(t *testing.T) {
	t.Setenv(EnvVar, "")
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("HOME", t.TempDir())
	t.Chdir(t.TempDir()) // no checkout's bin/k8s
	if runtime.GOOS != "linux" {
		t.Skip("XDG_DATA_HOME places the store on Linux only")
	}
	srv := newIndexServer(t, envtestindex.Archive(t, envtestindex.FakeBinaries()))
	o := fetchOptions(t, srv)
	o.StoreDir = ""
	f, err := Fetch(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	found, err := Lookup()
	if err != nil || found.Dir != f.Dir || found.Source != "setup-envtest" {
		t.Fatalf("Lookup: %+v, %v; want %s from setup-envtest", found, err, f.Dir)
	}
}
