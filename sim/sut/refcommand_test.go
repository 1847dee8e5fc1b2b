package sut

import (
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/restartsim/restartsim/sim/scenario"
)

// The out-of-process command carries the strategy's options, scaled, and renders with the
// per-process values; literal text such as a throttle pattern passes through the template as written.
func TestReferenceCommand(t *testing.T) {
	sc, err := scenario.Parse("ref.yaml", []byte(`apiVersion: restartsim/v1
kind: Scenario
name: ref
timeScale: 10
fleet: {targetGroupBindings: 8}
controller:
  strategies:
    - {name: ckpt, checkpoint: annotation, throttle: "Elastic Load Balancing v2:^Register.*=4:20"}
timeline: [{action: restart}]
`))
	if err != nil {
		t.Fatal(err)
	}
	st := sc.Controller.Strategies[0]
	st.Binary, st.Args = "/bin/restartsim", []string{"--v=2"}
	x, err := OutOfProcess(&inProcess{clock: sc.Clock(), replicas: 1, leaseNS: "lease", namespaces: []string{"a", "b"}, vpcID: "vpc-1"}, st)
	if err != nil {
		t.Fatal(err)
	}
	var argv []string
	for _, a := range x.Command {
		tm, err := template.New("").Option("missingkey=error").Parse(a)
		if err != nil {
			t.Fatalf("%q: %v", a, err)
		}
		var b strings.Builder
		if err := tm.Execute(&b, scenario.TemplateData{Kubeconfig: "/kc", AWSEndpoint: "http://aws", MetricsPort: 9, Namespace: "lease", VpcID: "vpc-1"}); err != nil {
			t.Fatal(err)
		}
		argv = append(argv, b.String())
	}
	for _, want := range []string{"/bin/restartsim", "controller", "--kubeconfig=/kc", "--aws-endpoint=http://aws", "--metrics-bind-address=127.0.0.1:9",
		"--checkpoint=annotation", "--deferral-delay=3m0s", "--leader-election-namespace=lease", "--namespaces=a,b", "--vpc-id=vpc-1",
		// timeScale 10: the client-side throttle keeps pace with fakeaws' scaled buckets.
		"--aws-api-throttle=Elastic Load Balancing v2:^Register.*=40:20", "--v=2"} {
		if !slices.Contains(argv, want) {
			t.Errorf("argv lacks %q:\n%s", want, strings.Join(argv, "\n"))
		}
	}
	if argv[len(argv)-1] != "--v=2" {
		t.Errorf("args are not last: %v", argv)
	}
	if got := literal(`a{{b}}"c`); got != `{{"a{{b}}\"c"}}` {
		t.Errorf("literal = %s", got)
	}
}
