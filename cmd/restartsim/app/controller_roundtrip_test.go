package app

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"text/template"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
)

// roundTripScenario has a strategy for each group of flags the reference command writes: none set,
// every duration and switch set (at timeScale 10, so each is scaled), zeros that mean "off", the load
// balancer reconcilers, and a mutant with its delay. Between them they set every knob of
// controller.Knobs to a value other than its default.
const roundTripScenario = `apiVersion: restartsim/v1
kind: Scenario
name: roundtrip
timeScale: 10
fleet: {targetGroupBindings: 4, ingresses: {count: 2}}
controller:
  replicas: 2
  strategies:
    - {name: defaults}
    - name: everything
      checkpoint: compact
      priorityQueue: true
      lowPriorityInitialEvents: true
      deferralDelay: 40s
      deferralJitter: 20s
      requeueDuration: 3s
      targetHealthCacheTTL: 50s
      securityGroupCacheTTL: 70s
      syncPeriod: 2h
      driftCheckInterval: 90s
      maxConcurrentReconciles: 7
      maxAttempts: 4
      resume: true
      resumeInterval: 5s
      throttle: "Elastic Load Balancing v2:^Register.*=4:20"
      leaseDuration: 30s
      renewDeadline: 20s
      retryPeriod: 4s
      leaderElection: true
      releaseOnCancel: false
      warmup: true
    - {name: off, checkpoint: none, deferralJitter: 0s, driftCheckInterval: 0s}
    - {name: load-balancers, checkpoint: annotation, modelCheckpoint: model}
    - {name: mutant, checkpoint: annotation, mutant: slow-early-exit, mutantDelay: 50ms}
timeline: [{action: restart}]
`

// TestReferenceCommandRoundTrip: a reference strategy run out of process gets the options it gets in
// process. The argv the harness writes for it, rendered as at a start and parsed by this verb's flags,
// gives replica 0's in-process options once both are defaulted as controller.New defaults them; only
// what belongs to one process (logger, metrics registry, random source, clock, metrics and health
// addresses) may differ. Every knob of controller.Knobs takes a value other than its default in one
// of the strategies, so each is seen to make the trip.
func TestReferenceCommandRoundTrip(t *testing.T) {
	sc, err := scenario.Parse("roundtrip.yaml", []byte(roundTripScenario))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakeaws.New(fakeaws.Options{Region: "us-west-2", AccessKeyID: "key", SecretAccessKey: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	const endpoint = "http://127.0.0.1:4566"
	changed := map[string]bool{}
	for _, st := range sc.Controller.Strategies {
		t.Run(st.Name, func(t *testing.T) {
			cfg := sut.InProcessConfig{ReplicaConfig: sut.ReplicaConfig{AWS: backend.Local{Server: srv},
				Creds: backend.Creds{Region: "us-west-2", AccessKey: "key", SecretKey: "secret"}, Strategy: st, Clock: sc.Clock(),
				Replicas: sc.Controller.Replicas, Namespaces: []string{"ns-1", "ns-2"}, LeaseNamespace: "leases"},
				Seed: 7, LoadBalancers: st.ModelCheckpoint != "", ClusterName: "cluster-1"}
			want, argv, err := sut.ReferenceOptions(cfg, "/bin/restartsim", endpoint)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range controller.Knobs {
				changed[k.Field] = changed[k.Field] || k.Get(want) != k.Default()
			}
			args := render(t, argv, scenario.TemplateData{Kubeconfig: "/kubeconfig", AWSEndpoint: endpoint, Region: "us-west-2",
				AccessKeyID: "key", SecretAccessKey: "secret", MetricsPort: 9, HealthPort: 10, Namespace: "leases", VpcID: srv.DefaultVPCID()})
			if len(args) < 2 || args[0] != "/bin/restartsim" || args[1] != "controller" {
				t.Fatalf("argv %q does not run the controller verb", args)
			}
			o := &controllerOptions{}
			fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
			o.AddFlags(fs)
			if err := fs.Parse(args[2:]); err != nil {
				t.Fatalf("restartsim controller %s: %v", strings.Join(args[2:], " "), err)
			}
			if err := o.Validate(); err != nil {
				t.Fatalf("restartsim controller %s: %v", strings.Join(args[2:], " "), err)
			}
			if o.kubeconfig != "/kubeconfig" {
				t.Errorf("--kubeconfig = %q", o.kubeconfig)
			}
			if diff := optionsDiff(effective(want), effective(o.opts)); diff != "" {
				t.Errorf("out of process (%s) differs from in process:\n%s", strings.Join(args[2:], " "), diff)
			}
		})
	}
	for _, k := range controller.Knobs {
		if !changed[k.Field] {
			t.Errorf("knob %s keeps its default in every strategy: set it in roundTripScenario", k.Field)
		}
	}
}

// render executes each argument as the harness does at a start.
func render(t *testing.T, argv []string, data scenario.TemplateData) []string {
	t.Helper()
	out := make([]string, len(argv))
	for i, a := range argv {
		tm, err := template.New("").Option("missingkey=error").Parse(a)
		if err != nil {
			t.Fatalf("%q: %v", a, err)
		}
		var b strings.Builder
		if err := tm.Execute(&b, data); err != nil {
			t.Fatalf("%q: %v", a, err)
		}
		out[i] = b.String()
	}
	return out
}

// effective is o as a controller runs with it, without what belongs to one process and without the
// resume interval when resume is off (the command passes it only with --resume).
func effective(o controller.Options) controller.Options {
	o = o.WithDefaults()
	if !o.Resume {
		o.ResumeInterval = 0
	}
	o.Logger, o.MetricsRegistry, o.Rand, o.Clock = logr.Logger{}, nil, nil, nil
	o.MetricsBindAddress, o.HealthProbeBindAddress = "", ""
	return o
}

// optionsDiff lists the fields of two Options that differ, one per line.
func optionsDiff(want, got controller.Options) string {
	var diffs []string
	var walk func(prefix string, w, g reflect.Value)
	walk = func(prefix string, w, g reflect.Value) {
		if w.Kind() == reflect.Struct && w.Type() == reflect.TypeOf(controller.AWSOptions{}) {
			for i := range w.NumField() {
				walk(prefix+w.Type().Field(i).Name+".", w.Field(i), g.Field(i))
			}
			return
		}
		if !reflect.DeepEqual(w.Interface(), g.Interface()) {
			diffs = append(diffs, fmt.Sprintf("%s in process %v, out of process %v", strings.TrimSuffix(prefix, "."), w.Interface(), g.Interface()))
		}
	}
	w, g := reflect.ValueOf(want), reflect.ValueOf(got)
	for i := range w.NumField() {
		if f := w.Type().Field(i); f.IsExported() {
			walk(f.Name+".", w.Field(i), g.Field(i))
		}
	}
	return strings.Join(diffs, "\n")
}
