package scaffold

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseHelp(t *testing.T) {
	tests := []struct {
		file string
		want []Flag // a subset, checked by name
	}{
		{"ack", []Flag{{Name: "allow-unsafe-aws-endpoint-urls"}, {Name: "aws-region", Value: "string"}, {Name: "healthz-addr", Value: "string", Default: "0.0.0.0:8081"}, {Name: "enable-leader-election"}}},
		{"kubebuilder", []Flag{{Name: "kubeconfig", Value: "string"}, {Name: "leader-elect"}, {Name: "metrics-bind-address", Value: "string", Default: "0"}}},
		{"controller", []Flag{{Name: "help"}, {Name: "verbosity", Value: "int"}, {Name: "leader-election-id", Value: "string", Default: "ctrl-tgb-controller"}, {Name: "log-format", Value: "format", Default: "console"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("testdata/help", tt.file+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]Flag{}
			for _, f := range ParseHelp(string(text)) {
				got[f.Name] = f
			}
			for _, w := range tt.want {
				g, ok := got[w.Name]
				if !ok || g.Value != w.Value || g.Default != w.Default {
					t.Errorf("flag %s = %+v (found %v), want %+v", w.Name, g, ok, w)
				}
			}
		})
	}
}

func TestPlanStrategy(t *testing.T) {
	ack := []*CRD{{Group: "elbv2.services.k8s.aws", Kind: "TargetGroup"}}
	tests := []struct {
		help     string
		crds     []*CRD
		wantArgs []string
		lease    string
		env      bool
	}{
		{"ack", ack, []string{"--enable-leader-election", "--leader-election-namespace={{.Namespace}}", "--metrics-addr=127.0.0.1:{{.MetricsPort}}",
			"--healthz-addr=127.0.0.1:{{.HealthPort}}", "--aws-region={{.Region}}", "--aws-endpoint-url={{.AWSEndpoint}}", "--allow-unsafe-aws-endpoint-urls"},
			"ack-elbv2.services.k8s.aws", true},
		{"kubebuilder", nil, []string{"--kubeconfig={{.Kubeconfig}}", "--leader-elect", "--metrics-bind-address=127.0.0.1:{{.MetricsPort}}",
			"--health-probe-bind-address=127.0.0.1:{{.HealthPort}}"}, "", false},
		{"controller", nil, []string{"--kubeconfig={{.Kubeconfig}}", "--leader-elect", "--leader-election-namespace={{.Namespace}}",
			"--metrics-bind-address=127.0.0.1:{{.MetricsPort}}", "--health-probe-bind-address=127.0.0.1:{{.HealthPort}}", "--aws-region={{.Region}}",
			"--aws-endpoint={{.AWSEndpoint}}", "--vpc-id={{.VpcID}}", "--cluster-name={{.ClusterName}}"}, "ctrl-tgb-controller", false},
	}
	for _, tt := range tests {
		t.Run(tt.help, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("testdata/help", tt.help+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			p := planStrategy(ParseHelp(string(text)), tt.crds, "x")
			var args []string
			for _, a := range p.args {
				args = append(args, a.value)
			}
			if strings.Join(args, " ") != strings.Join(tt.wantArgs, " ") {
				t.Errorf("args\n %v\nwant\n %v", args, tt.wantArgs)
			}
			if p.lease != tt.lease || (p.env["KUBECONFIG"] != "") != tt.env || !p.controllerRuntime {
				t.Errorf("lease %q env %v controller-runtime %v", p.lease, p.env, p.controllerRuntime)
			}
		})
	}
}

// RunHelp runs a real program: a script that prints a help text, only for --help, in an empty
// directory and environment.
func TestRunHelp(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ctrl")
	script := "#!/bin/sh\n" +
		"[ \"$1\" = controller ] && [ \"$2\" = --help ] || exit 3\n" +
		"[ -z \"$AWS_ACCESS_KEY_ID\" ] || exit 4\n" +
		"echo 'Usage of ctrl:'\n" +
		"echo '      --leader-elect            Enable leader election'\n" +
		"echo \"      --kubeconfig string       Path (default \\\"$KUBECONFIG\\\")\" >&2\n" +
		"exit 2\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "must-not-reach-the-child")
	text, err := RunHelp(context.Background(), bin, []string{"controller"}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	flags := ParseHelp(text)
	if len(flags) != 2 || flags[0].Name != "leader-elect" || !strings.HasSuffix(flags[1].Default, "/no-kubeconfig") {
		t.Fatalf("flags %+v from %q", flags, text)
	}
}

func TestRunHelpFailures(t *testing.T) {
	dir := t.TempDir()
	hang := filepath.Join(dir, "hang")
	quiet := filepath.Join(dir, "quiet")
	if err := os.WriteFile(hang, []byte("#!/bin/sh\nexec sleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(quiet, []byte("#!/bin/sh\necho no flags here\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ bin, want string }{
		{hang, "did not finish within 200ms"},
		{quiet, "printed no flags (exit 0): no flags here"},
		{filepath.Join(dir, "missing"), "no such file"},
	} {
		if _, err := RunHelp(context.Background(), tt.bin, nil, 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("RunHelp(%s) = %v, want %q", filepath.Base(tt.bin), err, tt.want)
		}
	}
}
