package app

import (
	"bytes"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

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

// A kubeconfig carries no client-side limit; the controller must not fall back to client-go's
// 5 requests a second, which paces a restart's writes in 200 ms steps.
func TestControllerKubeRateLimit(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:6443"}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "x"
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args      []string
		limited   bool
		qps       float32
		wantBurst int
		wantErr   string
	}{
		{args: nil},
		{args: []string{"--kube-api-qps=50"}, limited: true, qps: 50, wantBurst: 100},
		{args: []string{"--kube-api-qps=0.5", "--kube-api-burst=3"}, limited: true, qps: 0.5, wantBurst: 3},
		{args: []string{"--kube-api-qps=-1"}, wantErr: "must not be negative"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o := &controllerOptions{}
			cmd := newControllerCommand()
			cmd.ResetFlags()
			o.AddFlags(cmd.Flags())
			if err := cmd.ParseFlags(append([]string{"--kubeconfig", kubeconfig}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			if err := o.Validate(); tt.wantErr != "" || err != nil {
				if tt.wantErr == "" || err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Validate: %v, want %q", err, tt.wantErr)
				}
				return
			}
			rc, err := o.restConfig()
			if err != nil {
				t.Fatal(err)
			}
			rc.GroupVersion = &schema.GroupVersion{Version: "v1"}
			rc.NegotiatedSerializer = clientgoscheme.Codecs.WithoutConversion()
			c, err := rest.RESTClientFor(rc)
			if err != nil {
				t.Fatal(err)
			}
			rl := c.GetRateLimiter()
			if (rl != nil) != tt.limited {
				t.Fatalf("rate limiter %v, want limited=%v", rl, tt.limited)
			}
			if tt.limited && (rl.QPS() != tt.qps || rc.Burst != tt.wantBurst) {
				t.Fatalf("QPS %v burst %d, want %v and %d", rl.QPS(), rc.Burst, tt.qps, tt.wantBurst)
			}
		})
	}
}
