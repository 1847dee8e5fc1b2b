package envtestassets

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The modules the binaries build from exist once, here: each target's go.mod declares the module
// path the target expects and pins the version the constants name, go.sum holds that pin, and no
// go.mod elsewhere in the repository declares the same module (a second copy that could drift).
func TestEmbeddedModulesAreTheOnlyCopy(t *testing.T) {
	for _, tg := range targets {
		files, err := moduleFiles(tg.module)
		if err != nil {
			t.Fatal(err)
		}
		mod := string(files["go.mod"])
		if !strings.Contains(mod, "\nmodule "+tg.modulePath+"\n") {
			t.Errorf("%s: go.mod does not declare module %s", tg.name, tg.modulePath)
		}
		if !regexp.MustCompile(`(?m)^\s*(require\s+)?` + regexp.QuoteMeta(tg.pin+" "+tg.version) + `\b`).MatchString(mod) {
			t.Errorf("%s: go.mod does not require %s %s", tg.name, tg.pin, tg.version)
		}
		if !bytes.Contains(files["go.sum"], []byte(tg.pin+" "+tg.version+" h1:")) {
			t.Errorf("%s: go.sum lacks %s %s", tg.name, tg.pin, tg.version)
		}
		// What the build writes is what is embedded, under the real names.
		dir := t.TempDir()
		if err := writeModule(tg.module, dir); err != nil {
			t.Fatal(err)
		}
		for name, data := range files {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, data) {
				t.Errorf("%s: written %s differs from the embedded one (%v)", tg.module, name, err)
			}
		}
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "out") {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, tg := range targets {
			if strings.Contains(string(data), "\nmodule "+tg.modulePath+"\n") {
				t.Errorf("%s is a second copy of the %s module embedded in internal/envtestassets/modules", path, tg.module)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The Makefile names bin/k8s/<version> with its own variable; it must be Version.
func TestMakefileVersionMatches(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Skip(err)
	}
	m := regexp.MustCompile(`(?m)^ENVTEST_K8S_VERSION\s*:?=\s*(\S+)`).FindSubmatch(data)
	if m == nil || string(m[1]) != Version {
		t.Fatalf("Makefile ENVTEST_K8S_VERSION = %q, want %s", m, Version)
	}
}

// A binary built from another module (this test binary) is not taken for an asset.
func TestBuiltFromModuleRefusesOtherBinaries(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	for _, tg := range targets {
		if err := tg.builtFromModule(exe); err == nil {
			t.Errorf("%s: the test binary passed as built from the module", tg.name)
		}
	}
	script := filepath.Join(t.TempDir(), "etcd")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if tg, _ := targetNamed("etcd"); tg.builtFromModule(script) == nil {
		t.Error("a shell script passed as built from the module")
	}
}

func FuzzGoSumLines(f *testing.F) {
	f.Add([]byte("a v1 h1:x=\na v1/go.mod h1:y=\n\n"))
	f.Add([]byte("  spaced v2 h1:z=  \r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for line := range goSumLines(data) {
			if line == "" || strings.Contains(line, "/go.mod ") || strings.TrimSpace(line) != line {
				t.Fatalf("kept %q", line)
			}
		}
	})
}

// TestEnsureBuildsEtcdForReal builds etcd with the go command from the embedded module into a
// temporary directory (about 30 s with a warm module cache, minutes cold), checks the binary runs
// and reports the pinned version, then that a stamp-less copy is recognised without a build.
// Opt-in: RESTARTSIM_BUILD_ASSETS=1, and not under -short.
func TestEnsureBuildsEtcdForReal(t *testing.T) {
	if testing.Short() || os.Getenv("RESTARTSIM_BUILD_ASSETS") == "" {
		t.Skip("builds etcd from source; set RESTARTSIM_BUILD_ASSETS=1 to run")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip(err)
	}
	etcd, _ := targetNamed("etcd")
	dir := t.TempDir()
	var progress bytes.Buffer
	o := BuildOptions{Dir: dir, Progress: &progress, ProgressEvery: 10 * time.Second}
	if err := o.setDefaults(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := o.ensure(context.Background(), []target{etcd})
	t.Logf("etcd built in %s:\n%s", time.Since(start).Round(time.Second), progress.String())
	if err != nil || len(res.Built) != 1 {
		t.Fatalf("ensure = %+v, %v", res, err)
	}
	bin := filepath.Join(dir, "etcd")
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "etcd Version: "+EtcdVersion) {
		t.Fatalf("etcd --version = %q, %v; want %s", out, err, EtcdVersion)
	}
	if err := etcd.builtFromModule(bin); err != nil {
		t.Fatalf("the built etcd is not recognised as built from its module: %v", err)
	}
	// Without its stamp (an older build), it is recorded, not rebuilt.
	if err := os.Remove(stampPath(dir, "etcd")); err != nil {
		t.Fatal(err)
	}
	o.build = func(context.Context, string, target, string, io.Writer) error {
		t.Error("etcd was built again")
		return nil
	}
	res, err = o.ensure(context.Background(), []target{etcd})
	if err != nil || len(res.Built) > 0 || len(res.Recorded) != 1 {
		t.Fatalf("ensure without a stamp = %+v, %v; want etcd recorded, not built", res, err)
	}
}
