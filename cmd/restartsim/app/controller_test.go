package app

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/controller"
)

func TestControllerFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{name: "defaults", args: nil},
		{name: "compact", args: []string{"--checkpoint=compact", "--priority-queue=false", "--deferral-delay=1m", "--aws-api-throttle=EC2:^Describe.*=10:20"}},
		{name: "bad mode", args: []string{"--checkpoint=sometimes"}, wantErr: "checkpoint"},
		{name: "bad throttle", args: []string{"--aws-api-throttle=EC2:x=1"}, wantErr: "throttle"},
		{name: "low priority needs pq", args: []string{"--priority-queue=false", "--low-priority-initial-events"}, wantErr: "needs --priority-queue"},
		{name: "bad mutant", args: []string{"--mutant=nope", "--allow-mutants"}, wantErr: "mutant"},
		{name: "allowed mutant", args: []string{"--mutant=defer-drift", "--allow-mutants"}},
		{name: "drift interval", args: []string{"--drift-check-interval=30s"}},
		{name: "slow early exit", args: []string{"--mutant=slow-early-exit", "--allow-mutants", "--mutant-delay=20ms"}},
		{name: "slow start default delay", args: []string{"--mutant=slow-start", "--allow-mutants"}},
		{name: "mutant delay without mutant", args: []string{"--mutant-delay=1s"}, wantErr: "without a mutant"},
		{name: "negative mutant delay", args: []string{"--mutant=slow-start", "--allow-mutants", "--mutant-delay=-1s"}, wantErr: "must be positive"},
		{name: "mutant delay of another mutant", args: []string{"--mutant=defer-drift", "--allow-mutants", "--mutant-delay=1s"}, wantErr: "applies only to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newControllerCommand()
			o := &controllerOptions{}
			cmd.ResetFlags()
			o.AddFlags(cmd.Flags())
			if err := cmd.ParseFlags(tt.args); err != nil {
				t.Fatal(err)
			}
			err := o.Validate()
			if tt.wantErr == "" && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
		})
	}
	o := &controllerOptions{}
	cmd := newControllerCommand()
	cmd.ResetFlags()
	o.AddFlags(cmd.Flags())
	_ = cmd.ParseFlags(nil)
	if !o.opts.PriorityQueue || o.opts.DeferralDelay != controller.DefaultDeferralDelay || o.opts.AllowMutants || o.opts.Mutant != "" || o.opts.MutantDelay != 0 {
		t.Fatalf("defaults %+v", o.opts)
	}
	// The metrics and health endpoints bind loopback unless told otherwise.
	for flag, addr := range map[string]string{"metrics": o.opts.MetricsBindAddress, "health": o.opts.HealthProbeBindAddress} {
		host, _, err := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			t.Errorf("%s bind address %q is not loopback", flag, addr)
		}
	}
}

// TestControllerMutantRefused: --mutant without --allow-mutants is refused unless built with -tags mutants.
func TestControllerMutantRefused(t *testing.T) {
	o := &controllerOptions{}
	cmd := newControllerCommand()
	cmd.ResetFlags()
	o.AddFlags(cmd.Flags())
	if err := cmd.ParseFlags([]string{"--mutant=" + controller.MutantDeferDrift}); err != nil {
		t.Fatal(err)
	}
	err := o.Validate()
	if controller.MutantsBuildTag() {
		if err != nil {
			t.Fatalf("mutants build refused: %v", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), "--allow-mutants") {
		t.Fatalf("error %v, want a refusal naming --allow-mutants", err)
	}
}

func TestControllerHelp(t *testing.T) {
	root := NewRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"controller", "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"--kubeconfig", "--aws-endpoint", "--checkpoint", "--priority-queue", "--aws-api-throttle", "--leader-elect"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("help lacks %s", f)
		}
	}
}
