package sut

import (
	"strings"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/sim/scenario"
)

// referenceCommand is the argv template that runs a reference strategy out of process, as
// `<binary> controller <flags> <args>`: the flags carry the controller.Options an in-process
// instance of the strategy would get (durations and client-side throttle rates scaled by the time
// scale), and per-process values (kubeconfig, ports, AWS endpoint) are templates rendered at each
// start. Only flags whose value the strategy sets beyond the binary's defaults depend on the
// binary's version, so an older build of the controller verb runs the same strategy.
func referenceCommand(p *inProcess, binary string, args []string) ([]string, error) {
	o, err := p.strategyOptions(0, "{{.AWSEndpoint}}", nil)
	if err != nil {
		return nil, err
	}
	argv := []string{binary, "controller",
		"--kubeconfig={{.Kubeconfig}}",
		"--aws-endpoint={{.AWSEndpoint}}",
		"--aws-region={{.Region}}",
		"--aws-access-key-id={{.AccessKeyID}}",
		"--aws-secret-access-key={{.SecretAccessKey}}",
		"--metrics-bind-address=127.0.0.1:{{.MetricsPort}}",
		"--health-probe-bind-address=127.0.0.1:{{.HealthPort}}",
	}
	for _, k := range controller.Knobs {
		if arg, ok := k.Arg(o); ok {
			argv = append(argv, literal(arg))
		}
	}
	opt := func(cond bool, flag string) {
		if cond {
			argv = append(argv, flag)
		}
	}
	opt(o.VpcID != "", "--vpc-id={{.VpcID}}")
	opt(o.LeaderElectionNamespace != "", "--leader-election-namespace={{.Namespace}}")
	opt(o.LoadBalancers, "--load-balancers")
	opt(o.LoadBalancers, "--cluster-name="+literal(o.ClusterName))
	opt(len(o.Namespaces) > 0, "--namespaces="+literal(strings.Join(o.Namespaces, ",")))
	opt(o.Mutant != "", "--allow-mutants")
	return append(argv, args...), nil
}

// literal quotes s for a Go template, so a throttle pattern or name is passed as written.
func literal(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	return `{{"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"}}`
}

// ReferenceOptions is the reference strategy c.Strategy seen both ways: the options in-process replica 0
// runs with against fakeaws at awsEndpoint, and the argv template that runs the strategy out of process
// with binary (OutOfProcess's command, rendered at each start). `restartsim controller` must parse the
// one into the other.
func ReferenceOptions(c InProcessConfig, binary, awsEndpoint string) (controller.Options, []string, error) {
	p := newInProcess(c)
	o, err := p.options(0, awsEndpoint, nil)
	if err != nil {
		return controller.Options{}, nil, err
	}
	st := c.Strategy
	st.Binary = binary
	x, err := OutOfProcess(p, st)
	if err != nil {
		return controller.Options{}, nil, err
	}
	return o, x.Command, nil
}

// OutOfProcess returns the external-controller definition that runs strategy st out of process: a
// reference strategy with a binary through referenceCommand, an external one as defined. Nil when
// st runs in process.
func OutOfProcess(p *inProcess, st scenario.Strategy) (*scenario.External, error) {
	if st.Binary == "" {
		return nil, nil
	}
	// Every process gets the strategy's own workers: one command serves the warm-up and restarts.
	q := &inProcess{strategy: st, clock: p.clock, replicas: p.replicas, namespaces: p.namespaces, leaseNS: p.leaseNS,
		creds: p.creds, vpcID: p.vpcID, loadBalancers: p.loadBalancers, clusterName: p.clusterName}
	argv, err := referenceCommand(q, st.Binary, st.Args)
	if err != nil {
		return nil, err
	}
	x := &scenario.External{Name: st.Name, Command: argv, MetricsPath: scenario.DefaultMetricsPath,
		CacheSyncedLog: scenario.DefaultCacheSyncedLog}
	if st.ElectsLeader(p.replicas) {
		// The harness watches the Lease, to time each takeover as for an in-process replica.
		x.Lease = &scenario.Lease{Name: controller.DefaultLeaderElectionID, Namespace: scenario.DefaultLeaseNamespace}
	}
	return x, nil
}
