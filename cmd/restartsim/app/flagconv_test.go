package app

import (
	"testing"

	"github.com/spf13/pflag"
)

// Every verb follows one flag convention and shows examples.
func TestVerbsShareOneFlagConvention(t *testing.T) {
	root := NewRootCommand()
	for _, cmd := range root.Commands() {
		if cmd.Hidden || cmd.Name() == "help" || cmd.Name() == "completion" {
			continue
		}
		if cmd.Example == "" {
			t.Errorf("%s: no Example in its help", cmd.Name())
		}
		fs := cmd.Flags()
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Deprecated != "" {
				return
			}
			switch f.Name {
			case "file", "out", "verbosity":
				if want := f.Name[:1]; f.Shorthand != want {
					t.Errorf("%s --%s: shorthand %q, want -%s", cmd.Name(), f.Name, f.Shorthand, want)
				}
			case "input", "output", "results", "verbose", "region", "profile", "access-key-id", "secret-access-key":
				t.Errorf("%s --%s: a name outside the convention that is not deprecated", cmd.Name(), f.Name)
			}
		})
	}
	fake, _, _ := root.Find([]string{"fakeaws"})
	ctrl, _, _ := root.Find([]string{"controller"})
	if a, b := fake.Flags().Lookup("aws-region"), ctrl.Flags().Lookup("aws-region"); a == nil || b == nil || a.DefValue != b.DefValue {
		t.Errorf("fakeaws and controller --aws-region defaults differ: %v, %v", a, b)
	}
}

// Names that scripts use keep working as deprecated aliases of the new flags.
func TestOldFlagNamesStillWork(t *testing.T) {
	o := newFakeAWSOptions()
	fs := pflag.NewFlagSet("fakeaws", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--profile", "unlimited", "--region", "eu-west-1", "--access-key-id", "a", "--secret-access-key", "b", "--verbose"}); err != nil {
		t.Fatal(err)
	}
	if o.profile != "unlimited" || o.region != "eu-west-1" || o.accessKeyID != "a" || o.secretAccessKey != "b" || o.verbosity != 1 {
		t.Errorf("old names did not set the new flags: %+v", o)
	}
	r := &reportOptions{}
	fs = pflag.NewFlagSet("report", pflag.ContinueOnError)
	r.AddFlags(fs)
	if err := fs.Parse([]string{"-i", "results.json", "--output", "dir"}); err != nil || r.Results != "results.json" || r.OutDir != "dir" {
		t.Errorf("report -i/--output: %+v, %v", r, err)
	}
	s := &simulateOptions{}
	fs = pflag.NewFlagSet("simulate", pflag.ContinueOnError)
	s.AddFlags(fs)
	if err := fs.Parse([]string{"--verbose", "2", "-o", "dir"}); err != nil || s.Verbose != 2 || s.OutDir != "dir" {
		t.Errorf("simulate --verbose 2 -o dir: %+v, %v", s, err)
	}
}
