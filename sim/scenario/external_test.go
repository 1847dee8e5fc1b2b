package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sideBySide is a scenario with a reference strategy and an external controller on one fleet.
const sideBySide = `apiVersion: restartsim/v1
kind: Scenario
name: sbs
cluster:
  crds: ["CRDS"]
fleet: {targetGroupBindings: 10}
controller:
  registrationRate: 8
  strategies:
    - name: lbc
      external:
        command: ["${RS_TEST_BIN}", "--kubeconfig={{.Kubeconfig}}"]
        env: {EXTRA: "x-${RS_TEST_BIN}"}
        lease: {name: aws-load-balancer-controller-leader}
        queueDepth: {metric: workqueue_depth, labels: {name: targetGroupBinding}}
    - {name: checkpoint}
timeline:
  - {action: restart, await: none, downtime: 5s, stripCheckpoints: true}
  - {after: 2s, action: churn, services: 2}
  - {waitFor: leader, timeout: 2m}
  - {after: 1s, action: churn, services: 2}
`

func withEnv(t *testing.T, vars map[string]string) {
	t.Helper()
	prev := LookupEnv
	t.Cleanup(func() { LookupEnv = prev })
	LookupEnv = func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestParseSideBySideExternal(t *testing.T) {
	crds := t.TempDir()
	withEnv(t, map[string]string{"RS_TEST_BIN": "/opt/lbc", "RS_TEST_CRDS": crds})
	s, err := Parse("t.yaml", []byte(strings.Replace(sideBySide, "CRDS", "${RS_TEST_CRDS}", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Cluster.CRDs; len(got) != 1 || got[0] != crds {
		t.Errorf("crds = %v, want [%s]", got, crds)
	}
	ext := s.Controller.Strategies[0].External
	if ext == nil || ext.Command[0] != "/opt/lbc" || ext.Command[1] != "--kubeconfig={{.Kubeconfig}}" || ext.Env["EXTRA"] != "x-/opt/lbc" {
		t.Fatalf("external = %+v, want ${RS_TEST_BIN} expanded and templates kept", ext)
	}
	if ext.Name != "lbc" || ext.Lease.Namespace != DefaultLeaseNamespace || ext.MetricsPath != DefaultMetricsPath ||
		ext.DeferredQueueDepth.Metric != DefaultDeferredDepthMetric || ext.QueueDepth.Labels["name"] != "targetGroupBinding" {
		t.Errorf("external defaults = %+v (lease %+v)", ext, ext.Lease)
	}
	if st := s.Controller.Strategies[0]; st.Checkpoint != "" {
		t.Errorf("an external strategy got checkpoint %q", st.Checkpoint)
	}
	if st := s.Controller.Strategies[1]; st.External != nil || st.Checkpoint != CheckpointAnnotation {
		t.Errorf("reference strategy = %+v", st)
	}
	if !s.Controller.HasExternal() || s.Controller.RegistrationRate != 8 {
		t.Errorf("HasExternal %v, registrationRate %g", s.Controller.HasExternal(), s.Controller.RegistrationRate)
	}
	if !s.Timeline[0].StripCheckpoints || s.Timeline[2].WaitFor != WaitForLeader {
		t.Errorf("timeline = %+v", s.Timeline)
	}
	if last := s.Timeline[len(s.Timeline)-1]; last.WaitFor != WaitForSteadyState {
		t.Errorf("a timeline ending in waitFor leader got no final steadyState wait: %+v", last)
	}
}

func TestParseExternalErrors(t *testing.T) {
	crds := t.TempDir()
	file := filepath.Join(crds, "x.yaml")
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	withEnv(t, map[string]string{"RS_TEST_BIN": "/opt/lbc", "RS_TEST_CRDS": crds})
	ok := strings.Replace(sideBySide, "CRDS", file, 1)
	sub := func(old, new string) string {
		if !strings.Contains(ok, old) {
			panic("test bug: sideBySide lacks " + old)
		}
		return strings.Replace(ok, old, new, 1)
	}
	cases := []struct{ name, in, want string }{
		{"unset variable", sub(`"${RS_TEST_BIN}"`, `"${RS_NOT_SET}"`),
			`t.yaml:12:19: controller.strategies[0].external.command[0]: environment variable RS_NOT_SET is not set (referenced as ${RS_NOT_SET})`},
		{"unset variable in env", sub(`"x-${RS_TEST_BIN}"`, `"${RS_NOT_SET}"`), `controller.strategies[0].external.env[EXTRA]: environment variable RS_NOT_SET is not set`},
		{"unset variable in crds", sub("crds: [\""+file+"\"]", "crds: [\"${RS_NOT_SET}/crds\"]"), `t.yaml:5:10: cluster.crds[0]: environment variable RS_NOT_SET is not set`},
		{"bad variable name", sub(`"${RS_TEST_BIN}"`, `"${1X}"`), `${1X}: not a variable name`},
		{"missing crds", sub("crds: [\""+file+"\"]", "crds: [\""+crds+"/nope\"]"), `cluster.crds[0]: stat ` + crds + `/nope: no such file or directory`},
		{"reference field on external", sub("    - name: lbc\n", "    - name: lbc\n      checkpoint: none\n"),
			`controller.strategies[0].checkpoint: does not apply to an external controller`},
		{"external name", sub("        lease:", "        name: other\n        lease:"), `controller.strategies[0].external.name: is the strategy's name ("lbc")`},
		{"timeScale", sub("name: sbs\n", "name: sbs\ntimeScale: 5\n"), `timeScale: must be 1 with an external controller (controller.strategies[0])`},
		{"lease name", sub("aws-load-balancer-controller-leader", "Leader_X"), `controller.strategies[0].external.lease.name: must be a Lease name`},
		{"lease namespace template", sub("{name: aws-load-balancer-controller-leader}", "{name: l, namespace: '{{.Nope}}'}"), `controller.strategies[0].external.lease.namespace: bad template`},
		{"metric name", sub("metric: workqueue_depth", "metric: work-queue"), `controller.strategies[0].external.queueDepth.metric: must be a Prometheus metric name`},
		{"label name", sub("labels: {name:", "labels: {bad-label:"), `controller.strategies[0].external.queueDepth.labels[bad-label]: not a Prometheus label name`},
		{"registration rate", sub("registrationRate: 8", "registrationRate: 0"), `t.yaml:8:3: controller.registrationRate: must be a positive number`},
		{"strip on churn", sub("{after: 2s, action: churn, services: 2}", "{after: 2s, action: churn, services: 2, stripCheckpoints: true}"),
			`timeline[1].stripCheckpoints: does not apply to action churn`},
		{"waitFor", sub("{waitFor: leader, timeout: 2m}", "{waitFor: lead, timeout: 2m}"), `timeline[2].waitFor: "lead" is not one of leader, steadyState`},
		{"unknown field", sub("        lease:", "        leases: 1\n        lease:"), `controller.strategies[0].external.leases: unknown field`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tc.in))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
			assertPlaced(t, err)
		})
	}
}

// The LBC scenarios parse once their variables are set (they name files outside the repository).
func TestShippedLBCScenariosParse(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/lbc/*.yaml")
	if len(files) == 0 {
		t.Skip("no LBC scenarios")
	}
	crds := t.TempDir()
	withEnv(t, map[string]string{"LBC_BINARY": "/opt/lbc", "LBC_CRDS": crds})
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := Load(f); err != nil {
				t.Fatal(err)
			}
		})
	}
	withEnv(t, map[string]string{})
	if _, err := Load(files[0]); err == nil || !strings.Contains(err.Error(), "LBC_") {
		t.Errorf("without LBC_BINARY and LBC_CRDS: %v, want an unset-variable error", err)
	}
}
