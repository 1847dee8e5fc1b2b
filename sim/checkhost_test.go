package sim

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// checkedScenario has every field the host checks look at; each case replaces one placeholder.
const checkedScenario = `apiVersion: restartsim/v1
kind: Scenario
name: checked
cluster:
  crds: [CRDS]
  envtest: {assetsDir: ASSETS}
fleet: {targetGroupBindings: 2}
controller:
  strategies:
    - name: ext
      external: {command: [EXTERNAL, "--kubeconfig={{.Kubeconfig}}"]}
    - {name: ref, binary: BINARY}
timeline: [{action: restart}]
`

// What a scenario names on this machine is checked before anything is created: a missing, non-
// executable or non-program command or binary, a CRD file without a CRD, missing envtest assets or
// kubeconfig are bad input naming file:line:column and field, and no output folder appears.
func TestRunChecksHostBeforeCreatingAnything(t *testing.T) {
	files := t.TempDir()
	write := func(name, text string, mode os.FileMode) string {
		p := filepath.Join(files, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	script := write("controller.sh", "#!/bin/sh\nexit 0\n", 0o755)
	noExec := write("noexec.sh", "#!/bin/sh\nexit 0\n", 0o644)
	text := write("text", "not a program\n", 0o755)
	crd := write("crd.yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n", 0o644)
	configMap := write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", 0o644)
	assets := filepath.Join(files, "assets")
	if err := os.Mkdir(assets, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"kube-apiserver", "etcd"} {
		write(filepath.Join("assets", b), "#!/bin/sh\n", 0o755)
	}
	valid := strings.NewReplacer("CRDS", crd, "ASSETS", assets, "EXTERNAL", script, "BINARY", script).Replace(checkedScenario)
	missing := filepath.Join(files, "missing")
	sub := func(old, new string) string { return strings.Replace(valid, old, new, 1) }

	cases := []struct{ name, in, want string }{
		{"missing command", sub(script+`, "--kube`, missing+`, "--kube`),
			`checked.yaml:11:28: controller.strategies[0].external.command[0]: stat ` + missing + `: no such file or directory`},
		{"command not executable", sub(script+`, "--kube`, noExec+`, "--kube`),
			`controller.strategies[0].external.command[0]: ` + noExec + ` is not executable (mode -rw-r--r--; chmod +x it)`},
		{"command not a program", sub(script+`, "--kube`, text+`, "--kube`),
			`controller.strategies[0].external.command[0]: ` + text + ` is neither an executable (ELF, Mach-O) nor a script`},
		{"command not on PATH", sub(script+`, "--kube`, `no-such-controller-xyz, "--kube`),
			`controller.strategies[0].external.command[0]: "no-such-controller-xyz": no such executable on PATH`},
		{"command a directory", sub(script+`, "--kube`, files+`, "--kube`),
			`controller.strategies[0].external.command[0]: ` + files + ` is not a regular file`},
		{"missing binary", sub("binary: "+script, "binary: "+missing),
			`checked.yaml:12:19: controller.strategies[1].binary: stat ` + missing},
		{"CRD file without a CRD", sub("crds: ["+crd, "crds: ["+configMap),
			`checked.yaml:5:10: cluster.crds[0]: CRDs ` + configMap + `: no CustomResourceDefinition found`},
		{"missing assets", sub("assetsDir: "+assets, "assetsDir: "+missing),
			`checked.yaml:6:13: cluster.envtest.assetsDir: envtest assets missing: kube-apiserver not found in ` + missing + ` (cluster.envtest.assetsDir)`},
		{"missing kubeconfig", sub("  envtest: {assetsDir: "+assets+"}", "  kubeconfig: {path: "+missing+"}"),
			`checked.yaml:6:16: cluster.kubeconfig.path: stat ` + missing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := scenario.Parse("checked.yaml", []byte(tc.in))
			if err != nil {
				t.Fatalf("the case must parse (host checks come after): %v", err)
			}
			out := filepath.Join(t.TempDir(), "out")
			_, err = Run(context.Background(), Options{Scenario: sc, OutDir: out, Stdout: io.Discard, Progress: io.Discard})
			if !runerr.IsBadInput(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v\nwant bad input containing %q", err, tc.want)
			}
			if !regexp.MustCompile(`checked\.yaml:\d+:\d+: `).MatchString(err.Error()) {
				t.Errorf("error %q does not name file:line:column", err)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the output folder was created (%v)", err)
			}
		})
	}

	// Only the strategies that run are checked, at their place in the file.
	sc, err := scenario.Parse("checked.yaml", []byte(sub("binary: "+script, "binary: "+missing)))
	if err != nil {
		t.Fatal(err)
	}
	o := newRunConfig(Options{Scenario: sc, Strategies: []string{"ref"}})
	if err := checkHost(o, sc, mustSelect(t, sc, "ref")); err == nil || !strings.Contains(err.Error(), "controller.strategies[1].binary") {
		t.Errorf("only ref: %v, want controller.strategies[1].binary named", err)
	}
	if err := checkHost(o, sc, mustSelect(t, sc, "ext")); err != nil {
		t.Errorf("only ext, whose command exists: %v", err)
	}
}

func mustSelect(t *testing.T, sc *scenario.Scenario, names ...string) *scenario.Scenario {
	t.Helper()
	out, err := selectStrategies(sc, names)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
