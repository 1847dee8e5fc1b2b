package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/internal/envtestassets"
	"github.com/restartsim/restartsim/internal/localcluster"
)

func init() { subcommands = append(subcommands, newClusterCommand) }

// clusterOptions are the flags of `restartsim cluster up|down|status`.
type clusterOptions struct {
	dir     string
	assets  string
	timeout time.Duration
	verbose int
}

func (o *clusterOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.dir, "dir", "out/cluster", "the cluster's directory: certificates, etcd data, logs, kubeconfig")
	fs.StringVar(&o.assets, "assets", "", "directory with etcd, kube-apiserver and kube-controller-manager (default: $KUBEBUILDER_ASSETS or bin/k8s/<version>)")
	fs.DurationVar(&o.timeout, "timeout", 90*time.Second, "how long to wait for each component to start (up) or stop (down)")
	fs.IntVarP(&o.verbose, "verbosity", "v", 0, "log verbosity")
}

func newClusterCommand() *cobra.Command {
	o := &clusterOptions{}
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Start or stop a local control plane (etcd, kube-apiserver, kube-controller-manager) to run scenarios against with --kubeconfig",
		Long: `A real control plane on loopback, as separate processes: client-certificate authentication, RBAC, a
service-account signing key and kube-controller-manager's default controllers, so namespaces
finalize, garbage collection runs and EndpointSlices come from the real EndpointSlice controller.
There is no kubelet and no scheduler; the harness's simulated Nodes stand in for them.`,
		Example: `  restartsim cluster up                      # writes out/cluster/kubeconfig
  restartsim simulate -f scenarios/quickstart.yaml --kubeconfig out/cluster/kubeconfig --install-crds
  restartsim cluster down`,
	}
	o.AddFlags(cmd.PersistentFlags())
	cmd.AddCommand(
		&cobra.Command{Use: "up", Short: "Start the cluster and write its kubeconfig", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return o.up(cmd) }},
		&cobra.Command{Use: "down", Short: "Stop the cluster and remove its keys and data (logs stay)", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return o.down() }},
		&cobra.Command{Use: "status", Short: "Say whether the cluster runs (exit 1 when it does not)", Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error { return o.status(cmd) }},
	)
	return cmd
}

func (o *clusterOptions) up(cmd *cobra.Command) error {
	assets, err := envtestassets.Dir(o.assets)
	if err != nil {
		return badInput(err)
	}
	log, sync, err := newRunLogger(o.verbose)
	if err != nil {
		return err
	}
	defer sync()
	c, err := localcluster.Up(cmd.Context(), localcluster.Options{Dir: o.dir, AssetsDir: assets, StartTimeout: o.timeout, Logger: log})
	if errors.Is(err, localcluster.ErrRunning) {
		fmt.Fprintf(cmd.OutOrStdout(), "already running; kubeconfig: %s\n", c.Kubeconfig)
		return nil
	}
	if err != nil {
		return badInput(err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "cluster running at %s\nkubeconfig: %s\n", c.Server, c.Kubeconfig)
	return nil
}

func (o *clusterOptions) down() error {
	log, sync, err := newRunLogger(o.verbose)
	if err != nil {
		return err
	}
	defer sync()
	if err := localcluster.Down(o.dir, o.timeout, log); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	return nil
}

func (o *clusterOptions) status(cmd *cobra.Command) error {
	c, err := localcluster.Load(o.dir)
	if err != nil || !c.Running() {
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("no local cluster runs in %s", o.dir)}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "running at %s\nkubeconfig: %s\n", c.Server, c.Kubeconfig)
	for _, comp := range c.Components {
		fmt.Fprintf(cmd.OutOrStdout(), "  %-24s pid %-8d log %s\n", comp.Name, comp.PID, comp.Log)
	}
	return nil
}
