package controller

import (
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// processOptions are the Options fields that are not strategy knobs: settings of one process or
// deployment (addresses, credentials, identity, what it watches) and test hooks. A new Options
// field is either a knob (Knobs) or listed here.
var processOptions = []string{
	"ResumeNamespace", "LoadBalancers", "IngressClass", "ClusterName", "VpcID",
	"AWS.Region", "AWS.Endpoint", "AWS.AccessKeyID", "AWS.SecretAccessKey",
	"LeaderElectionID", "LeaderElectionNamespace", "MetricsBindAddress", "HealthProbeBindAddress",
	"Namespaces", "Clock", "Rand", "Logger", "MetricsRegistry", "AllowMutants",
}

// optionFields are the addresses of o's exported fields (AWS's too), by name.
func optionFields(o *Options) map[uintptr]string {
	out := map[uintptr]string{}
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			if f.Type == reflect.TypeOf(AWSOptions{}) {
				walk(prefix+f.Name+".", v.Field(i))
				continue
			}
			out[v.Field(i).Addr().Pointer()] = prefix + f.Name
		}
	}
	walk("", reflect.ValueOf(o).Elem())
	return out
}

// Every exported Options field is a knob's or a process setting, and no two knobs share one.
func TestKnobsCoverOptions(t *testing.T) {
	var o Options
	fields := optionFields(&o)
	owner := map[string]string{}
	for _, name := range processOptions {
		owner[name] = "process"
	}
	for _, k := range Knobs {
		name, ok := fields[reflect.ValueOf(k.opt.ptr(&o)).Pointer()]
		if !ok {
			t.Errorf("knob %s: not an exported Options field", k.Field)
			continue
		}
		if owner[name] != "" {
			t.Errorf("knob %s: Options.%s is already %s's", k.Field, name, owner[name])
		}
		owner[name] = k.Field
	}
	for _, name := range fields {
		if owner[name] == "" {
			t.Errorf("Options.%s is neither a knob (Knobs) nor a process setting (processOptions)", name)
		}
	}
}

// Each knob is declared completely: unique scenario field and flag, a value type the flag and
// default agree on, and a doc comment unless it follows one that covers it.
func TestKnobsWellFormed(t *testing.T) {
	fields, flags := map[string]bool{}, map[string]bool{}
	doc := ""
	for i, k := range Knobs {
		if k.Field == "" || !unicode.IsLower(rune(k.Field[0])) || fields[k.Field] {
			t.Errorf("knob %d: field %q is empty, not lowerCamel or repeated", i, k.Field)
		}
		if k.Flag == "" || flags[k.Flag] || k.Usage == "" {
			t.Errorf("knob %s: flag %q is empty or repeated, or has no help", k.Field, k.Flag)
		}
		fields[k.Field], flags[k.Flag] = true, true
		if k.Doc != "" {
			doc = k.Doc
		} else if !strings.Contains(doc, k.GoName()) {
			t.Errorf("knob %s: no doc comment, and the one before it does not cover %s", k.Field, k.GoName())
		}
		if k.FlagDefault != nil && reflect.TypeOf(k.FlagDefault) != reflect.TypeOf(k.Default()) {
			t.Errorf("knob %s: flag default %T, value %T", k.Field, k.FlagDefault, k.Default())
		}
		if (k.Values != nil && k.Kind() != KindString) || (k.Max > 0 && k.Kind() != KindInt) || (k.Off && k.Kind() != KindDuration) {
			t.Errorf("knob %s: values, bounds or off do not apply to a %T", k.Field, k.Default())
		}
	}
}

// A knob's argument, parsed by its flag, sets the value it was written from.
func TestKnobArgParsesBack(t *testing.T) {
	set := Options{
		Checkpoint: CheckpointCompact, ModelCheckpoint: ModelCheckpointModel, PriorityQueue: true, LowPriorityInitialEvents: true,
		DeferralDelay: time.Minute, DeferralJitter: -1, RequeueDuration: time.Second, TargetHealthCacheTTL: 2 * time.Second,
		SecurityGroupCacheTTL: 3 * time.Second, SyncPeriod: time.Hour, DriftCheckInterval: -1, Resume: true, ResumeInterval: 4 * time.Second,
		LeaderElection: true, LeaseDuration: 5 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second, KeepLeaseOnStop: true,
		Warmup: true, MaxConcurrentReconciles: 7, AWS: AWSOptions{Throttle: "Elastic Load Balancing v2:^Register.*=4:20", MaxAttempts: 4},
		Mutant: MutantSlowStart, MutantDelay: 2 * time.Second, LoadBalancers: true,
	}
	for _, k := range Knobs {
		arg, ok := k.Arg(set)
		if !ok {
			t.Errorf("knob %s: set to %v, but not passed", k.Field, k.Get(set))
			continue
		}
		var got Options
		fs := pflag.NewFlagSet("controller", pflag.ContinueOnError)
		k.AddFlag(fs, &got)
		if err := fs.Parse([]string{arg}); err != nil {
			t.Errorf("knob %s: %s: %v", k.Field, arg, err)
			continue
		}
		want := k.Get(set)
		if d, ok := want.(time.Duration); ok && d < 0 {
			want = -time.Nanosecond // every negative duration is "off"
		}
		if k.Get(got) != want {
			t.Errorf("knob %s: %s parses to %v, want %v", k.Field, arg, k.Get(got), want)
		}
	}
}

// Unset knobs default to Default; a negative Off duration stays off, another negative value is unset.
func TestKnobDefaults(t *testing.T) {
	o := Options{DeferralJitter: -1, SyncPeriod: -1, MaxConcurrentReconciles: -2}.setDefaults()
	for _, k := range Knobs {
		want := k.Default()
		if k.Field == "deferralJitter" {
			want = time.Duration(-1)
		}
		if k.Field == "mutantDelay" {
			continue // the mutant's, DefaultMutantDelay
		}
		if got := k.Get(o); got != want {
			t.Errorf("knob %s: defaulted to %v, want %v", k.Field, got, want)
		}
	}
}

// Options are defaulted once: New and ManagerOptions use WithDefaults' result as it is.
func TestOptionsDefaultedOnce(t *testing.T) {
	o := Options{}.WithDefaults()
	o.Rand, o.SyncPeriod = nil, 0
	if again := o.WithDefaults(); again.Rand != nil || again.SyncPeriod != 0 {
		t.Error("defaulted options were defaulted again")
	}
	if m := ManagerOptions(o, manager.Options{}); *m.Cache.SyncPeriod != 0 {
		t.Errorf("ManagerOptions defaulted the sync period again: %v", *m.Cache.SyncPeriod)
	}
}
