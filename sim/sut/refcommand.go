package sut

import (
	"strconv"
	"strings"
	"time"

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
	o, err := p.options(0, "{{.AWSEndpoint}}", nil)
	if err != nil {
		return nil, err
	}
	dur := func(d time.Duration) string {
		if d < 0 {
			return "-1ns" // the controller's "off"
		}
		return d.String()
	}
	argv := []string{binary, "controller",
		"--kubeconfig={{.Kubeconfig}}",
		"--aws-endpoint={{.AWSEndpoint}}",
		"--aws-region={{.Region}}",
		"--aws-access-key-id={{.AccessKeyID}}",
		"--aws-secret-access-key={{.SecretAccessKey}}",
		"--metrics-bind-address=127.0.0.1:{{.MetricsPort}}",
		"--health-probe-bind-address=127.0.0.1:{{.HealthPort}}",
		"--checkpoint=" + literal(string(o.Checkpoint)),
		"--priority-queue=" + strconv.FormatBool(o.PriorityQueue),
		"--low-priority-initial-events=" + strconv.FormatBool(o.LowPriorityInitialEvents),
		"--deferral-delay=" + dur(o.DeferralDelay),
		"--deferral-jitter=" + dur(o.DeferralJitter),
		"--targetgroupbinding-requeue-duration=" + dur(o.RequeueDuration),
		"--target-health-cache-ttl=" + dur(o.TargetHealthCacheTTL),
		"--security-group-cache-ttl=" + dur(o.SecurityGroupCacheTTL),
		"--sync-period=" + dur(o.SyncPeriod),
		"--drift-check-interval=" + dur(o.DriftCheckInterval),
		"--aws-api-throttle=" + literal(o.AWS.Throttle),
	}
	opt := func(cond bool, flag string) {
		if cond {
			argv = append(argv, flag)
		}
	}
	opt(o.VpcID != "", "--vpc-id={{.VpcID}}")
	opt(o.MaxConcurrentReconciles > 0, "--max-concurrent-reconciles="+strconv.Itoa(o.MaxConcurrentReconciles))
	opt(o.AWS.MaxAttempts > 0, "--aws-max-retries="+strconv.Itoa(o.AWS.MaxAttempts))
	opt(o.Resume, "--resume")
	opt(o.Resume, "--resume-interval="+dur(o.ResumeInterval))
	opt(o.LeaderElection, "--leader-elect")
	opt(o.LeaderElectionNamespace != "", "--leader-election-namespace={{.Namespace}}")
	opt(o.LeaseDuration > 0, "--leader-elect-lease-duration="+dur(o.LeaseDuration))
	opt(o.RenewDeadline > 0, "--leader-elect-renew-deadline="+dur(o.RenewDeadline))
	opt(o.RetryPeriod > 0, "--leader-elect-retry-period="+dur(o.RetryPeriod))
	opt(o.KeepLeaseOnStop, "--leader-elect-keep-lease-on-stop")
	opt(o.Warmup, "--warmup")
	opt(o.LoadBalancers, "--load-balancers")
	opt(o.LoadBalancers, "--cluster-name="+literal(o.ClusterName))
	opt(o.LoadBalancers && o.ModelCheckpoint != "", "--model-checkpoint="+literal(string(o.ModelCheckpoint)))
	opt(len(o.Namespaces) > 0, "--namespaces="+literal(strings.Join(o.Namespaces, ",")))
	opt(o.Mutant != "", "--mutant="+literal(o.Mutant))
	opt(o.Mutant != "", "--allow-mutants")
	opt(o.Mutant != "" && o.MutantDelay > 0, "--mutant-delay="+dur(o.MutantDelay))
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
	q := &inProcess{strategy: st, scale: p.scale, replicas: p.replicas, namespaces: p.namespaces, leaseNS: p.leaseNS,
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
