// Package envtestindex serves an envtest release index and its archives over HTTP for tests, in
// the format setup-envtest reads (controller-tools' envtest-releases.yaml, envtest-v<version>-
// <os>-<arch>.tar.gz archives holding controller-tools/envtest/<binary>).
package envtestindex

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// Archive packs files as controller-tools' envtest archives do.
func Archive(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression) // stored: real binaries pack in a second
	tw := tar.NewWriter(gz)
	for name, data := range files {
		hdr := &tar.Header{Name: "controller-tools/envtest/" + name, Mode: 0o755, Size: int64(len(data)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// DirArchive packs kube-apiserver, etcd and kubectl (when there) from dir, real binaries.
func DirArchive(t testing.TB, dir string) []byte {
	t.Helper()
	files := map[string][]byte{}
	for _, b := range []string{"kube-apiserver", "etcd", "kubectl"} {
		data, err := os.ReadFile(filepath.Join(dir, b))
		if err != nil && b != "kubectl" {
			t.Fatal(err)
		}
		if err == nil {
			files[b] = data
		}
	}
	return Archive(t, files)
}

// FakeBinaries are small executables standing in for the real ones.
func FakeBinaries() map[string][]byte {
	m := map[string][]byte{}
	for _, b := range []string{"kube-apiserver", "etcd", "kubectl"} {
		m[b] = []byte("#!/bin/sh\necho " + b + "\n")
	}
	return m
}

// SHA512 is the hex SHA-512 the index lists for an archive.
func SHA512(b []byte) string { s := sha512.Sum512(b); return hex.EncodeToString(s[:]) }

// ArchiveName is the archive of version v (no "v") for this platform.
func ArchiveName(v string) string {
	return fmt.Sprintf("envtest-v%s-%s-%s.tar.gz", v, runtime.GOOS, runtime.GOARCH)
}

// Server serves /envtest-releases.yaml listing Offered, each for this platform and one other, and
// the archive of Good; the other archives are listed with a wrong hash and not served.
type Server struct {
	*httptest.Server
	Good    string
	Offered []string
	Archive []byte
	Hash    string                                       // listed for Good; default: Archive's
	Serve   func(w http.ResponseWriter, r *http.Request) // any archive's handler; default: Good's archive
	Index   func(w http.ResponseWriter, r *http.Request) // the index's handler; default: the index
	// Requests counts the requests served.
	Requests atomic.Int64
}

// New starts a Server, closed when the test ends.
func New(t testing.TB, good string, offered []string, archive []byte) *Server {
	s := &Server{Good: good, Offered: offered, Archive: archive}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// IndexURL is the index's address.
func (s *Server) IndexURL() string { return s.URL + "/envtest-releases.yaml" }

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.Requests.Add(1)
	switch {
	case r.URL.Path == "/envtest-releases.yaml" && s.Index != nil:
		s.Index(w, r)
	case r.URL.Path == "/envtest-releases.yaml":
		_, _ = io.WriteString(w, s.indexYAML())
	case strings.HasSuffix(r.URL.Path, ".tar.gz") && s.Serve != nil:
		s.Serve(w, r)
	case r.URL.Path == "/"+ArchiveName(s.Good):
		w.Header().Set("Content-Length", fmt.Sprint(len(s.Archive)))
		_, _ = w.Write(s.Archive)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) indexYAML() string {
	var b strings.Builder
	b.WriteString("releases:\n")
	for _, v := range s.Offered {
		fmt.Fprintf(&b, "  v%s:\n", v)
		for _, name := range []string{ArchiveName(v), fmt.Sprintf("envtest-v%s-plan9-mips.tar.gz", v)} {
			h := strings.Repeat("0", 128)
			if name == ArchiveName(s.Good) {
				h = s.Hash
				if h == "" {
					h = SHA512(s.Archive)
				}
			}
			fmt.Fprintf(&b, "    %s:\n      hash: %s\n      selfLink: %s/%s\n", name, h, s.URL, name)
		}
	}
	return b.String()
}
