package scaffold

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/sim/scenario"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// cases are the golden inputs: CRDs shaped like ACK's, a kind of no known AWS resource, the
// repository's own TargetGroupBinding CRD; help texts captured in the style of each binary.
var cases = []struct {
	name  string
	opts  Options
	help  string // testdata/help/<help>.txt; "" without a binary
	fills map[string]string
}{
	{name: "ack-targetgroup", opts: Options{CRDs: []string{"testdata/crds/ack"}, Kinds: []string{"TargetGroup"}, Binary: "bin/ack-elbv2-controller"}, help: "ack"},
	{name: "ack-all", opts: Options{CRDs: []string{"testdata/crds/ack"}, Binary: "bin/ack-elbv2-controller"}, help: "ack"},
	{name: "widgets", opts: Options{CRDs: []string{"testdata/crds/widgets/widgets.yaml"}, Binary: "bin/manager", Count: 3}, help: "kubebuilder",
		fills: map[string]string{
			"fleet.objects[0].template.spec.color":    "red",
			"fleet.objects[0].template.spec.replicas": "2",
			"timeline[1].patch":                       "{spec: {color: 'c{{.Seq}}'}}",
			"timeline[1].applied":                     "object.spec.color != ''",
		}},
	{name: "widgets-no-binary", opts: Options{CRDs: []string{"testdata/crds/widgets"}, Kinds: []string{"widgets.example.com"}, Count: 3}},
	{name: "ack-route53", opts: Options{CRDs: []string{"testdata/crds/route53"}, Kinds: []string{"RecordSet", "HostedZone"}, Binary: "bin/ack-route53-controller"}, help: "ack"},
	{name: "ack-recordset-alone", opts: Options{CRDs: []string{"testdata/crds/route53"}, Kinds: []string{"RecordSet"}, Binary: "bin/ack-route53-controller"}, help: "ack",
		fills: map[string]string{
			"fleet.objects[0].template.spec.hostedZoneID": "Z0123456789ABC",
			"fleet.objects[0].aws.name":                   `"object.spec.name + '.example.com.'"`,
		}},
	{name: "ack-ec2-s3", opts: Options{CRDs: []string{"testdata/crds/ec2s3"}, Binary: "bin/ack-controller"}, help: "ack",
		fills: map[string]string{
			"timeline[1].patch":   "{spec: {tagging: {tagSet: [{key: k, value: 'v{{.Seq}}'}]}}}",
			"timeline[1].applied": "aws != null",
		}},
	{name: "tgb", opts: Options{CRDs: []string{"../../controller/config/crd"}, Kinds: []string{"TargetGroupBinding"}, Binary: "bin/ctrl", BinaryArgs: []string{"controller"}}, help: "controller"},
}

func generate(t *testing.T, i int) *Result {
	t.Helper()
	c := cases[i]
	o := c.opts
	o.help = func(_ context.Context, binary string, args []string, _ time.Duration) (string, error) {
		data, err := os.ReadFile(filepath.Join("testdata/help", c.help+".txt"))
		return string(data), err
	}
	res, err := Generate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGolden(t *testing.T) {
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := generate(t, i)
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(golden, res.YAML, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if string(want) != string(res.YAML) {
				t.Errorf("%s differs from the output (go test ./sim/scaffold -run TestGolden -update):\n%s", golden, res.YAML)
			}
			if n := strings.Count(string(res.YAML), "'"+scenario.Placeholder); n != len(res.Placeholders) {
				t.Errorf("%d placeholders in the file, %d reported: %v", n, len(res.Placeholders), res.Placeholders)
			}
		})
	}
}

// The written file parses and validates (templates and conditions compiled against the CRDs) once its
// placeholders are filled; before, each placeholder is refused at its field.
func TestGeneratedScenarioValidates(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ctrl")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	lookup := scenario.LookupEnv
	t.Cleanup(func() { scenario.LookupEnv = lookup })
	scenario.LookupEnv = func(string) (string, bool) { return bin, true }
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := generate(t, i)
			data := string(res.YAML)
			if len(res.Placeholders) > 0 {
				_, err := scenario.Parse("init.yaml", res.YAML)
				var list scenario.ErrorList
				if !errors.As(err, &list) {
					t.Fatalf("with placeholders: error %v, want an ErrorList", err)
				}
				for j, p := range res.Placeholders {
					if j >= len(list) || list[j].Path != p || !strings.Contains(list[j].Msg, "placeholder") || list[j].Line == 0 {
						t.Errorf("placeholder %s not refused at its field: %v", p, err)
					}
				}
				data = fill(t, data, res.Placeholders, c.fills)
			}
			if c.opts.Binary == "" {
				return // the command is a placeholder a test cannot fill sensibly
			}
			if _, err := scenario.Parse("init.yaml", []byte(data)); err != nil {
				t.Fatalf("filled scenario does not validate: %v\n%s", err, data)
			}
		})
	}
}

// fill replaces each placeholder, in file order, with the value fills gives its path.
func fill(t *testing.T, data string, paths []string, fills map[string]string) string {
	t.Helper()
	re := regexp.MustCompile(`'` + regexp.QuoteMeta(scenario.Placeholder) + `(?:[^']|'')*'`)
	i := 0
	return re.ReplaceAllStringFunc(data, func(string) string {
		p := paths[i]
		i++
		v, ok := fills[p]
		if !ok {
			v = "'filled'"
		}
		return v
	})
}

func TestUnknownKind(t *testing.T) {
	_, err := Generate(context.Background(), Options{CRDs: []string{"testdata/crds/ack"}, Kinds: []string{"Rule"}})
	var uk *UnknownKindError
	if !errors.As(err, &uk) || uk.Kind != "Rule" || len(uk.Known) != 2 || !strings.Contains(err.Error(), "TargetGroup (elbv2.services.k8s.aws)") {
		t.Fatalf("error %v, want an UnknownKindError listing Listener and TargetGroup", err)
	}
}

func TestReadCRDsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		paths []string
		want  string
	}{
		{[]string{filepath.Join(dir, "missing")}, "no such file"},
		{[]string{dir + "/bad.yaml"}, "bad.yaml: document 1: CRD of apiextensions.k8s.io/v1beta1"},
		{[]string{"testdata/help"}, "no CustomResourceDefinition in testdata/help"},
	} {
		if _, err := ReadCRDs(tt.paths); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ReadCRDs(%v) = %v, want %q", tt.paths, err, tt.want)
		}
	}
}

func TestReadCRDsStorageVersion(t *testing.T) {
	crds, err := ReadCRDs([]string{"testdata/crds/widgets"})
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != 1 || crds[0].Version != "v1" || crds[0].APIVersion() != "example.com/v1" {
		t.Fatalf("got %+v, want the stored version v1", crds)
	}
}
