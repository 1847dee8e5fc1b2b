package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Options configures Create and, through the FleetPlan it leaves behind, the mutations and Cleanup.
type Options struct {
	// Client writes every object. Required; its scheme must know core, discovery and v1beta1 types, and its
	// rest.Config should not rate-limit on the client side (QPS < 0, or high QPS and Burst).
	Client client.Client
	// AWS creates target groups and security groups and seeds instances and ENIs. Required.
	AWS Provisioner
	// Concurrency is the number of concurrent Kubernetes writers. Default 32.
	Concurrency int
	// AWSConcurrency is the number of concurrent Provisioner calls. Default Concurrency.
	AWSConcurrency int
	// Progress receives a progress bar (objects done / total, rate, ETA) when it is a terminal, plain
	// lines every ProgressInterval otherwise. Default nil: no progress output.
	Progress io.Writer
	// ProgressInterval is the period of plain progress lines. Default 5s.
	ProgressInterval time.Duration
	// Labels go on every object and namespace the fleet creates: the run label, which Cleanup selects on
	// and the Simulator should watch. Default none (Cleanup then refuses to run).
	Labels map[string]string
	// ContainerRestartDelay is how long ContainerRestart keeps a container down, in wall time (the sim
	// passes the scenario's fleet.containerRestartDelay, scaled). Zero brings it back at once: the
	// default lives with the scenario, which users see, not here.
	ContainerRestartDelay time.Duration
	// Logger receives progress and mutation logs. Default logr.Discard().
	Logger logr.Logger
	// Clock stamps the objects' status times (pod start, node and pod conditions) and times Create
	// and its progress. Default: the real clock.
	Clock clock.PassiveClock
}

// Defaults of Options.
const (
	DefaultConcurrency      = 32
	DefaultProgressInterval = 5 * time.Second
)

func (o *Options) setDefaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = DefaultConcurrency
	}
	if o.AWSConcurrency <= 0 {
		o.AWSConcurrency = o.Concurrency
	}
	if o.ProgressInterval <= 0 {
		o.ProgressInterval = DefaultProgressInterval
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
}

func (o *Options) validate() error {
	var errs []error
	if o.Client == nil {
		errs = append(errs, errors.New("client: required"))
	} else if !o.Client.Scheme().Recognizes(v1beta1.GroupVersion.WithKind("TargetGroupBinding")) {
		errs = append(errs, errors.New("client: scheme lacks elbv2.k8s.aws/v1beta1 (call v1beta1.AddToScheme)"))
	}
	if o.AWS == nil {
		errs = append(errs, errors.New("aws: a Provisioner is required"))
	}
	if o.ContainerRestartDelay < 0 {
		errs = append(errs, fmt.Errorf("containerRestartDelay: must not be negative, got %v", o.ContainerRestartDelay))
	}
	return errors.Join(errs...)
}

// liveState is what Create leaves for the mutations.
type liveState struct {
	opts  Options
	sgIDs []string // security group IDs by index of FleetPlan.SecurityGroupNames (last: the load balancer's)
	lbSG  string

	changes int // Change ID sequence

	bg     context.Context // outlives mutation calls: delayed container starts
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// uncounted are counters for a mutation's creates, which no progress total or Stats covers.
func (l *liveState) uncounted() *counters {
	return &counters{progress: newProgress(nil, 0, 0, l.opts.Clock)}
}

// ErrNotCreated is returned by mutations on a fleet that Create has not (successfully) created.
var ErrNotCreated = errors.New("workload: fleet not created")
