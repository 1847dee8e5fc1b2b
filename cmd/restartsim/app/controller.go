package app

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/zapr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

func init() { subcommands = append(subcommands, newControllerCommand) }

// controllerOptions are the flags of `restartsim controller`.
type controllerOptions struct {
	kubeconfig string
	kubeQPS    float32
	kubeBurst  int
	logLevel   int
	logJSON    bool
	opts       controller.Options
}

func newControllerCommand() *cobra.Command {
	o := &controllerOptions{}
	cmd := &cobra.Command{
		Use:   "controller",
		Short: "Run the TargetGroupBinding controller against a cluster and an AWS endpoint",
		Example: `  # Against a standalone fakeaws (restartsim fakeaws) and the current kubeconfig context
  restartsim controller --aws-endpoint http://127.0.0.1:4566 --aws-access-key-id test \
    --aws-secret-access-key test --vpc-id vpc-0123456789abcdef0

  # Two replicas with leader election and the compact checkpoint
  restartsim controller --leader-elect --leader-election-namespace kube-system --checkpoint compact`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return badInput(err)
			}
			return o.run(cmd)
		},
	}
	o.AddFlags(cmd.Flags())
	completeValues(cmd, "checkpoint", string(controller.CheckpointNone), string(controller.CheckpointAnnotation), string(controller.CheckpointCompact))
	completeValues(cmd, "model-checkpoint", string(controller.ModelCheckpointNone), string(controller.ModelCheckpointModel))
	completeValues(cmd, "mutant", controller.KnownMutants()...)
	return cmd
}

// AddFlags registers the flags: the strategy knobs (controller.Knobs) with the defaults of
// controller.Options, and the settings of one process, with loopback metrics/health addresses like
// a deployed controller.
func (o *controllerOptions) AddFlags(fs *pflag.FlagSet) {
	c := &o.opts
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig; empty uses in-cluster config or $KUBECONFIG")
	fs.Float32Var(&o.kubeQPS, "kube-api-qps", 0, "Client-side limit of Kubernetes API requests per second; 0 for none (the API server's priority and fairness limits apply, as with controller-runtime's GetConfig and LBC)")
	fs.IntVar(&o.kubeBurst, "kube-api-burst", 0, "Burst of --kube-api-qps (default: twice the QPS)")
	for _, k := range controller.Knobs {
		k.AddFlag(fs, c)
	}
	fs.StringVar(&c.ResumeNamespace, "resume-namespace", "", "Namespace of the resume watermark ConfigMap (default: --leader-election-namespace)")
	fs.BoolVar(&c.LoadBalancers, "load-balancers", false, "Also reconcile Ingresses of --ingress-class and Services of type LoadBalancer into ELBv2 stacks (needs --cluster-name and --vpc-id)")
	fs.StringVar(&c.IngressClass, "ingress-class", controller.DefaultIngressClass, "IngressClass whose Ingresses the load balancer reconcilers manage")
	fs.StringVar(&c.ClusterName, "cluster-name", "", "Cluster name (picks the cluster-tagged security group of an ENI; the load balancer stacks' cluster tag)")
	fs.StringVar(&c.VpcID, "vpc-id", "", "VPC of the target groups when the spec does not name one")
	fs.StringVar(&c.AWS.Region, "aws-region", defaultRegion, "AWS region")
	fs.StringVar(&c.AWS.Endpoint, "aws-endpoint", "", "AWS endpoint URL for ELBv2 and EC2; empty = real AWS")
	fs.StringVar(&c.AWS.AccessKeyID, "aws-access-key-id", "", "Static AWS access key ID (default: the default credential chain, $AWS_ACCESS_KEY_ID first)")
	fs.StringVar(&c.AWS.SecretAccessKey, "aws-secret-access-key", "", "Static AWS secret access key (default: as --aws-access-key-id, $AWS_SECRET_ACCESS_KEY)")
	fs.StringVar(&c.LeaderElectionID, "leader-election-id", controller.DefaultLeaderElectionID, "Name of the leader election Lease")
	fs.StringVar(&c.LeaderElectionNamespace, "leader-election-namespace", "", "Namespace of the leader election Lease")
	fs.StringVar(&c.MetricsBindAddress, "metrics-bind-address", "127.0.0.1:8080", `Metrics address; "0" disables`)
	fs.StringVar(&c.HealthProbeBindAddress, "health-probe-bind-address", "127.0.0.1:8081", `Health probe address; "0" disables`)
	fs.StringSliceVar(&c.Namespaces, "namespaces", nil, "Namespaces to watch (default all)")
	fs.BoolVar(&c.AllowMutants, "allow-mutants", false, "Test only: allow --mutant in a build without the mutants tag")
	addVerbosityFlag(fs, &o.logLevel, "Log verbosity", "v")
	fs.BoolVar(&o.logJSON, "log-json", false, "Log JSON instead of console text")
	_ = fs.MarkDeprecated("log-json", "use --log-format json")
}

// Validate checks the flags.
func (o *controllerOptions) Validate() error {
	var errs []error
	if err := o.opts.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.opts.LowPriorityInitialEvents && !o.opts.PriorityQueue {
		errs = append(errs, errors.New("--low-priority-initial-events needs --priority-queue"))
	}
	if o.kubeQPS < 0 || o.kubeBurst < 0 {
		errs = append(errs, errors.New("--kube-api-qps and --kube-api-burst must not be negative"))
	}
	if o.opts.DeferralDelay <= 0 || o.opts.RequeueDuration <= 0 || o.opts.SyncPeriod <= 0 {
		errs = append(errs, errors.New("--deferral-delay, --targetgroupbinding-requeue-duration and --sync-period must be positive"))
	}
	return errors.Join(errs...)
}

func (o *controllerOptions) run(cmd *cobra.Command) error {
	if o.logJSON {
		logFormat = logFormatJSON
	}
	zl, err := buildRunLog(runLogConfig(zapLevel(o.logLevel)))
	if err != nil {
		return err
	}
	defer func() { _ = zl.Sync() }()
	log := zapr.NewLogger(zl)
	ctrl.SetLogger(log)
	o.opts.Logger = log.WithName("tgb")
	cfg, err := o.restConfig()
	if err != nil {
		return badInput(err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := v1beta1.AddToScheme(scheme); err != nil {
		return err
	}
	shutdown := 10 * time.Second
	opts := o.opts.WithDefaults() // once, for the manager and the controller
	mgr, err := ctrl.NewManager(cfg, controller.ManagerOptions(opts, manager.Options{
		Scheme: scheme, Logger: log, GracefulShutdownTimeout: &shutdown,
	}))
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if _, err := controller.New(mgr, opts); err != nil {
		return fmt.Errorf("creating controller: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	log.Info("starting controller", "checkpoint", o.opts.Checkpoint, "priorityQueue", o.opts.PriorityQueue,
		"lowPriorityInitialEvents", o.opts.LowPriorityInitialEvents, "resume", o.opts.Resume,
		"loadBalancers", o.opts.LoadBalancers, "modelCheckpoint", o.opts.ModelCheckpoint, "awsEndpoint", o.opts.AWS.Endpoint)
	if err := mgr.Start(cmd.Context()); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	log.Info("controller stopped")
	return nil
}

// restConfig loads the kubeconfig and sets the client-side rate limit of the flags. A kubeconfig
// carries no limit, and client-go's default for that (5 requests a second, burst 10) would hold
// every write after the first ten of a restart to 200 ms steps: no deployed controller runs so
// (controller-runtime's GetConfig turns the limit off, LBC sets it to a million).
func (o *controllerOptions) restConfig() (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if o.kubeconfig != "" {
		rules.ExplicitPath = o.kubeconfig
	}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("loading kubeconfig: %w", err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	if o.kubeQPS > 0 {
		cfg.QPS, cfg.Burst = o.kubeQPS, o.kubeBurst
		if cfg.Burst == 0 {
			cfg.Burst = max(1, int(2*o.kubeQPS))
		}
	}
	return cfg, nil
}

// zapLevel maps -v N to zap's level (-N: higher verbosity logs more).
func zapLevel(v int) zapcore.Level { return zapcore.Level(-v) }
