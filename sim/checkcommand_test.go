package sim

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// A command template is rendered with the values known before the start and its executable
// checked; one under a path the run makes at its start is refused; one that needs a value only the
// start gives is left to the start. Check and Run give the same error, and Check creates nothing.
func TestCheckRendersCommandTemplates(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "restartsim-us-west-2.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, command, want string }{
		{"rendered and found", dir + "/{{.ClusterName}}-{{.Region}}.sh", ""},
		{"rendered and missing", dir + "/{{.Region}}/controller", `"` + dir + `/{{.Region}}/controller" (rendered): stat ` + dir + `/us-west-2/controller: no such file or directory`},
		{"under CertDir", "{{.CertDir}}/nosuchbinary", `{{.CertDir}} is a directory the run creates at each start`},
		{"the kubeconfig", "{{.Kubeconfig}}", `{{.Kubeconfig}} is a file the run writes at its start`},
		{"known only at the start", dir + "/{{.Port}}/controller", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := "apiVersion: restartsim/v1\nkind: Scenario\nname: tmpl\ntimeScale: 1\nfleet: {targetGroupBindings: 2}\n" +
				"controller:\n  strategies:\n    - name: ext\n      external: {command: ['" + tc.command + "']}\ntimeline: [{action: restart}]\n"
			sc, err := scenario.Parse("tmpl.yaml", []byte(text))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			o := Options{Scenario: sc, OutDir: out, Stdout: io.Discard, Progress: io.Discard}
			err = Check(o)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if !runerr.IsBadInput(err) || !strings.Contains(err.Error(), "tmpl.yaml:9:28: controller.strategies[0].external.command[0]: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check = %v\nwant bad input at the field containing %q", err, tc.want)
			}
			if _, rerr := Run(context.Background(), o); rerr == nil || rerr.Error() != err.Error() {
				t.Errorf("Run = %v, want Check's error", rerr)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("the output folder was created (%v)", err)
			}
		})
	}
}
