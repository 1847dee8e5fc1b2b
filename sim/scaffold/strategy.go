package scaffold

import (
	"fmt"
	"slices"
	"strings"
)

// arg is one command-line argument with why it is there.
type arg struct{ value, why string }

// plan is an external strategy derived from a binary's flags.
type plan struct {
	args []arg
	env  map[string]string
	// lease is the leader-election Lease; leaseWhy says where its name came from.
	lease, leaseWhy string
	// controllerRuntime: the flags are controller-runtime's (or ACK's), so its log line and metrics apply.
	controllerRuntime bool
	notes             []string
}

// convention is one thing the harness must tell a controller, and the flag names that say it.
type convention struct {
	names []string
	// value is the flag's value; "" for a boolean flag that is only switched on.
	value string
	why   string
	// controllerRuntime marks flags of controller-runtime's (kubebuilder's) or ACK's main.
	controllerRuntime bool
}

var conventions = []convention{
	{[]string{"leader-elect", "enable-leader-election", "leader-election", "enable-leader-elect"}, "",
		"leader election on: a restarted instance waits for the crashed one's Lease, as in production", true},
	{[]string{"leader-election-namespace", "leader-elect-namespace", "leader-election-ns"}, "{{.Namespace}}",
		"the Lease in the namespace the harness creates for it", true},
	{[]string{"metrics-bind-address", "metrics-bind-addr", "metrics-addr", "metrics-address"}, "127.0.0.1:{{.MetricsPort}}",
		"a free port per instance, scraped for the work queue, reconcile work and heap", true},
	{[]string{"health-probe-bind-address", "health-probe-bind-addr", "health-probe-addr", "healthz-addr", "health-addr", "healthz-bind-address"},
		"127.0.0.1:{{.HealthPort}}", "a free port per instance", true},
	{[]string{"aws-region", "region"}, "{{.Region}}", "the scenario's region, which fakeaws serves", false},
	{[]string{"aws-endpoint-url", "aws-endpoint", "endpoint-url"}, "{{.AWSEndpoint}}", "fakeaws (AWS_ENDPOINT_URL names it too)", false},
	{[]string{"allow-unsafe-aws-endpoint-urls"}, "", "fakeaws speaks plain http on loopback", false},
	{[]string{"aws-vpc-id", "vpc-id"}, "{{.VpcID}}", "fakeaws's VPC", false},
	{[]string{"cluster-name"}, "{{.ClusterName}}", "the harness's cluster name (AWS tags)", false},
	{[]string{"webhook-bind-port", "webhook-port"}, "{{.Port}}", "a free port for the webhook server", false},
	{[]string{"webhook-server-addr", "webhook-bind-address", "webhook-addr"}, "127.0.0.1:{{.Port}}", "a free port for the webhook server", false},
	{[]string{"webhook-cert-dir", "cert-dir"}, "{{.CertDir}}", "a self-signed certificate the harness writes", false},
}

var leaseIDFlags = []string{"leader-election-id", "leader-elect-id", "leader-election-name", "leader-elect-resource-name"}

// planStrategy matches a binary's flags with controller-runtime's and ACK's conventions.
func planStrategy(flags []Flag, crds []*CRD, binaryName string) *plan {
	byName := map[string]Flag{}
	for _, f := range flags {
		byName[f.Name] = f
	}
	p := &plan{env: map[string]string{}}
	if f, ok := byName["kubeconfig"]; ok {
		p.args = append(p.args, arg{"--" + f.Name + "={{.Kubeconfig}}", "the harness's kubeconfig, with the controller's own identity"})
	} else {
		p.env["KUBECONFIG"] = "{{.Kubeconfig}}"
		p.notes = append(p.notes, "No --kubeconfig flag: the kubeconfig goes in KUBECONFIG, which controller-runtime reads.")
	}
	electing := false
	for _, c := range conventions {
		i := slices.IndexFunc(c.names, func(n string) bool { _, ok := byName[n]; return ok })
		if i < 0 {
			continue
		}
		f := byName[c.names[i]]
		p.controllerRuntime = p.controllerRuntime || c.controllerRuntime
		switch {
		case c.value != "":
			p.args = append(p.args, arg{fmt.Sprintf("--%s=%s", f.Name, c.value), c.why})
		case f.Value == "" || f.Value == "bool":
			p.args = append(p.args, arg{"--" + f.Name, c.why})
		default:
			p.args = append(p.args, arg{"--" + f.Name + "=true", c.why})
		}
		if c.value == "" && strings.Contains(f.Name, "leader") {
			electing = true
		}
	}
	if electing {
		p.leaseName(byName, crds, binaryName)
	}
	if !p.controllerRuntime {
		p.notes = append(p.notes, "No controller-runtime flags recognised: the cache-sync log line and the metrics are left at their defaults.")
	}
	return p
}

// leaseName finds the Lease an electing controller takes: a leader-election ID flag's default (or
// one the scenario sets), ACK's "ack-<group>", else a placeholder.
func (p *plan) leaseName(byName map[string]Flag, crds []*CRD, binaryName string) {
	for _, n := range leaseIDFlags {
		f, ok := byName[n]
		if !ok {
			continue
		}
		if f.Default != "" {
			p.lease, p.leaseWhy = f.Default, fmt.Sprintf("the default of --%s", n)
			return
		}
		p.lease = binaryName + "-leader"
		p.args = append(p.args, arg{fmt.Sprintf("--%s=%s", n, p.lease), "the Lease's name, given so that the harness knows it"})
		p.leaseWhy = fmt.Sprintf("set by --%s", n)
		return
	}
	for _, c := range crds {
		if strings.HasSuffix(c.Group, ".services.k8s.aws") { // a service's group, not ACK's own
			p.lease, p.leaseWhy = "ack-"+c.Group, "ACK's runtime names its Lease ack-<API group>"
			return
		}
	}
}
