package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/scenario"
)

// Relative --crds and --binary paths are resolved against the working directory: the binary's --help runs
// (in a scratch directory), and the written scenario names both absolutely, with the Route53 kinds mapped
// to their AWS resources and no placeholder left.
func TestInitRelativePathsAndRoute53Kinds(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(dir, "crds")
	if err := os.MkdirAll(crds, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"hostedzones.yaml", "recordsets.yaml"} {
		data, err := os.ReadFile(filepath.Join("../../../sim/scaffold/testdata/crds/route53", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(crds, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	help, err := os.ReadFile("../../../sim/scaffold/testdata/help/ack.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "help.txt"), help, 0o644); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncat " + filepath.Join(dir, "help.txt") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "controller"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	out := filepath.Join(dir, "out", "r53.yaml")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runCLI(t, "init", "--crds", "./crds", "--kind", "RecordSet", "--kind", "HostedZone", "--binary", "./controller", "-o", out)
	if code != ExitOK {
		t.Fatalf("init exited %d: %s", code, errText)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"crds: [" + crds + "]", "generated with " + filepath.Join(dir, "controller"),
		"aws: {kind: route53HostedZone", "aws: {kind: route53RecordSet", "mutations: [ChangeResourceRecordSets]"} {
		if !strings.Contains(text, want) {
			t.Errorf("scenario lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "'"+scenario.Placeholder) {
		t.Errorf("placeholders left:\n%s", text)
	}
}
