package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"

	"github.com/restartsim/restartsim/fakeaws"
)

func init() { subcommands = append(subcommands, newFakeAWSCommand) }

// fakeAWSOptions are the flags of `restartsim fakeaws`.
type fakeAWSOptions struct {
	listen              string
	profile             string
	region              string
	accessKeyID         string
	secretAccessKey     string
	healthyAfter        time.Duration
	deregistrationDelay time.Duration
	instanceBootDelay   time.Duration
	timeScale           float64
	seed                uint64
	callLog             string
	maxRecordedCalls    int
	maxInFlightBody     byteSize
	maxObject           byteSize
	maxStored           byteSize
	allowNonLoopback    bool
	verbosity           int
	eks                 fakeaws.EKSCluster
	eksCAFile           string
	iamRoles            []string
}

func newFakeAWSOptions() *fakeAWSOptions {
	return &fakeAWSOptions{
		listen: "127.0.0.1:4566", profile: fakeaws.ProfileAWSDocumented, region: defaultRegion,
		accessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), secretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		healthyAfter: 10 * time.Second, deregistrationDelay: 300 * time.Second, instanceBootDelay: 15 * time.Second, timeScale: 1, maxRecordedCalls: fakeaws.DefaultMaxRecordedCalls,
		maxInFlightBody: newByteSize(fakeaws.DefaultMaxInFlightBodyBytes), maxObject: newByteSize(fakeaws.DefaultMaxObjectBytes),
		maxStored: newByteSize(fakeaws.DefaultMaxStoredBytes),
	}
}

func (o *fakeAWSOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.listen, "listen", o.listen, "address to listen on (a bare :port binds 127.0.0.1)")
	fs.StringVar(&o.profile, "limits", o.profile, "API rate limits (token buckets): "+strings.Join(throttleProfiles, ", "))
	addDeprecatedAlias(fs, "profile", "limits")
	fs.StringVar(&o.region, "aws-region", o.region, "signing region clients must use")
	fs.StringVar(&o.accessKeyID, "aws-access-key-id", o.accessKeyID, "the one access key ID accepted (default $AWS_ACCESS_KEY_ID)")
	fs.StringVar(&o.secretAccessKey, "aws-secret-access-key", o.secretAccessKey, "its secret access key (default $AWS_SECRET_ACCESS_KEY)")
	addDeprecatedAlias(fs, "region", "aws-region")
	addDeprecatedAlias(fs, "access-key-id", "aws-access-key-id")
	addDeprecatedAlias(fs, "secret-access-key", "aws-secret-access-key")
	fs.DurationVar(&o.healthyAfter, "healthy-after", o.healthyAfter, "scenario time a registered target stays initial")
	fs.DurationVar(&o.instanceBootDelay, "instance-boot-delay", o.instanceBootDelay, "scenario time a launched EC2 instance stays pending (0: running at once)")
	fs.DurationVar(&o.deregistrationDelay, "deregistration-delay", o.deregistrationDelay, "scenario time a deregistered target stays draining")
	fs.Float64Var(&o.timeScale, "time-scale", o.timeScale, "scenario seconds per wall second (rates × s, delays ÷ s)")
	fs.Uint64Var(&o.seed, "seed", o.seed, "seed for latency jitter, error injection and resource IDs")
	fs.StringVar(&o.callLog, "call-log", o.callLog, "write every call as JSON lines to this file")
	fs.IntVar(&o.maxRecordedCalls, "max-recorded-calls", o.maxRecordedCalls, "calls held in memory for /_restartsim/calls; older ones are dropped and counted (-1: all, as a remote simulate run needs)")
	fs.Var(&o.maxInFlightBody, "max-inflight-body-bytes", "memory all request bodies being read may hold at once (a quantity such as 16Mi); a body that cannot get room within a second is refused with 503")
	fs.Var(&o.maxObject, "max-s3-object-bytes", "largest S3 object or part accepted (larger: EntityTooLarge)")
	fs.Var(&o.maxStored, "max-s3-stored-bytes", "most S3 holds: objects with their keys and metadata, unfinished multipart uploads (beyond: InsufficientCapacity, 507)")
	fs.StringVar(&o.eks.Name, "eks-cluster-name", "", "the EKS cluster DescribeCluster describes (none: every name is ResourceNotFoundException)")
	fs.StringVar(&o.eks.Endpoint, "eks-cluster-endpoint", "", "its API server endpoint")
	fs.StringVar(&o.eksCAFile, "eks-cluster-ca-file", "", "PEM file of its certificate authority (sent base64-encoded, as EKS does)")
	fs.StringVar(&o.eks.Version, "eks-kubernetes-version", "", "its Kubernetes version (default 1.34)")
	fs.StringVar(&o.eks.ServiceIPv4CIDR, "eks-service-cidr", "", "its service IPv4 CIDR (default 172.20.0.0/16)")
	fs.StringSliceVar(&o.iamRoles, "iam-role", nil, "an IAM role that exists (repeatable), for instance profiles to hold")
	fs.BoolVar(&o.allowNonLoopback, "allow-non-loopback", o.allowNonLoopback, "allow a --listen address beyond loopback (the server has no TLS and one fixed key pair)")
	addVerbosityFlag(fs, &o.verbosity, "log verbosity: 1 logs every call")
	addDeprecatedAlias(fs, "verbose", "verbosity")
	fs.Lookup("verbose").NoOptDefVal = "1" // it was a switch
}

func (o *fakeAWSOptions) Validate() error {
	var errs []error
	if o.accessKeyID == "" || o.secretAccessKey == "" {
		errs = append(errs, errors.New("--aws-access-key-id and --aws-secret-access-key (or AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) are required"))
	}
	if err := fakeaws.ValidateTimeScale(o.timeScale); err != nil {
		errs = append(errs, fmt.Errorf("--time-scale: %w", err))
	}
	if o.healthyAfter <= 0 || o.deregistrationDelay <= 0 {
		errs = append(errs, errors.New("--healthy-after and --deregistration-delay must be > 0"))
	}
	if !slices.Contains(throttleProfiles, o.profile) {
		errs = append(errs, fmt.Errorf("--limits %q: want %s", o.profile, strings.Join(throttleProfiles, ", ")))
	}
	if _, _, err := net.SplitHostPort(o.listen); err != nil {
		errs = append(errs, fmt.Errorf("--listen %q: %w", o.listen, err))
	} else if err := fakeaws.CheckListenAddress(o.listen, o.allowNonLoopback); err != nil {
		errs = append(errs, fmt.Errorf("--listen %q is beyond loopback: anyone who reaches it can drive the fake AWS; pass --allow-non-loopback to mean it", o.listen))
	}
	if o.eks.Name == "" && (o.eks.Endpoint != "" || o.eksCAFile != "" || o.eks.Version != "" || o.eks.ServiceIPv4CIDR != "") {
		errs = append(errs, errors.New("--eks-cluster-endpoint, --eks-cluster-ca-file, --eks-kubernetes-version and --eks-service-cidr describe the cluster --eks-cluster-name names"))
	}
	if _, _, err := net.ParseCIDR(o.eks.ServiceIPv4CIDR); o.eks.ServiceIPv4CIDR != "" && err != nil {
		errs = append(errs, fmt.Errorf("--eks-service-cidr %q: %w", o.eks.ServiceIPv4CIDR, err))
	}
	if o.maxRecordedCalls == 0 || o.maxRecordedCalls < -1 {
		errs = append(errs, fmt.Errorf("--max-recorded-calls must be > 0 or -1, got %d", o.maxRecordedCalls))
	}
	return errors.Join(errs...)
}

func newFakeAWSCommand() *cobra.Command {
	o := newFakeAWSOptions()
	cmd := &cobra.Command{
		Use:   "fakeaws",
		Short: "Serve a throttled fake ELBv2 + EC2 (+ S3) endpoint for aws-sdk-go-v2 clients",
		Long: `Serve the fake AWS that simulate runs in process, on its own: the ELBv2, EC2, STS and IAM query
APIs, Route53, SSM's EKS AMI parameters, EKS DescribeCluster (--eks-cluster-name) and S3, with SigV4
checked against one key pair, AWS's documented token-bucket throttles (--limits), target health that
turns healthy after --healthy-after, and a seeded default VPC (10.0.0.0/16, with its default security
group) that clients can use as is.

Admin API under /_restartsim/, with the same credentials (SigV4, or the headers
` + fakeaws.AdminAccessKeyHeader + ` and ` + fakeaws.AdminSecretKeyHeader + `):
  GET  calls, calls/stream, state, targets?arn=, metrics (Prometheus text), now
  POST seed/vpc, seed/instance, seed/eni, seed/role, eks/cluster, profile, limit, latency, errors,
       outage, health-timing, capacity-error, drift/remove-target, drift/revoke-ingress

Point restartsim simulate at it with --aws-endpoint; its scenario's aws.region must be this
server's --aws-region (both default to ` + defaultRegion + `).`,
		Example: `  # A fake AWS on 127.0.0.1:4566 with the documented limits
  AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test restartsim fakeaws

  # Unthrottled, ten times faster, every call logged and written to a file
  restartsim fakeaws --aws-access-key-id test --aws-secret-access-key test --limits unlimited \
    --time-scale 10 -v 1 --call-log /tmp/calls.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return badInput(err)
			}
			return runFakeAWS(cmd.Context(), o, nil)
		},
	}
	o.AddFlags(cmd.Flags())
	completeValues(cmd, "limits", throttleProfiles...)
	return cmd
}

// eksCluster is the cluster the --eks-* flags describe, or nil without --eks-cluster-name.
func (o *fakeAWSOptions) eksCluster() (*fakeaws.EKSCluster, error) {
	if o.eks.Name == "" {
		return nil, nil
	}
	c := o.eks
	if o.eksCAFile != "" {
		pem, err := os.ReadFile(o.eksCAFile)
		if err != nil {
			return nil, fmt.Errorf("--eks-cluster-ca-file: %w", err)
		}
		c.CertificateAuthority = base64.StdEncoding.EncodeToString(pem)
	}
	return &c, nil
}

// throttleProfiles are fakeaws' named sets of API rate limits.
var throttleProfiles = []string{fakeaws.ProfileAWSDocumented, fakeaws.ProfileAWS2026, fakeaws.ProfileUnlimited}

// newZapLogger logs at info, and fakeaws' per-call V(1) lines from verbosity 1.
func newZapLogger(verbosity int) (logr.Logger, func(), error) {
	z, err := buildRunLog(runLogConfig(zapcore.Level(-verbosity)))
	if err != nil {
		return logr.Logger{}, nil, err
	}
	return zapr.NewLogger(z), func() { _ = z.Sync() }, nil
}

// processRegistry is a metrics registry with the Go runtime's and the process's own metrics (goroutines,
// resident memory, CPU seconds) beside fakeaws', so a soak can watch the server from outside.
func processRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// runFakeAWS serves until ctx is cancelled. ready, when non-nil, receives the base URL once it listens (tests).
func runFakeAWS(ctx context.Context, o *fakeAWSOptions, ready chan<- string) error {
	log, sync, err := newZapLogger(o.verbosity)
	if err != nil {
		return err
	}
	defer sync()
	eksCluster, err := o.eksCluster()
	if err != nil {
		return badInput(err)
	}
	srv, err := fakeaws.New(fakeaws.Options{
		Region: o.region, AccessKeyID: o.accessKeyID, SecretAccessKey: o.secretAccessKey, Profile: o.profile,
		HealthyAfter: o.healthyAfter, DeregistrationDelay: o.deregistrationDelay,
		InstanceBootDelay: bootDelay(o.instanceBootDelay), TimeScale: o.timeScale, Seed: o.seed,
		Logger: log.WithName("fakeaws"), MaxRecordedCalls: o.maxRecordedCalls, AllowNonLoopback: o.allowNonLoopback,
		MaxInFlightBodyBytes: o.maxInFlightBody.bytes, MaxObjectBytes: o.maxObject.bytes, MaxStoredBytes: o.maxStored.bytes,
		Registry: processRegistry(), EKSCluster: eksCluster, IAMRoles: o.iamRoles,
	})
	if err != nil {
		return badInput(err)
	}
	if o.callLog != "" {
		f, err := os.Create(o.callLog)
		if err != nil {
			return badInput(fmt.Errorf("--call-log: %w", err))
		}
		defer f.Close()
		stop := srv.Recorder().StreamTo(f)
		defer stop()
	}
	addr := o.listen
	if host, port, _ := net.SplitHostPort(addr); host == "" {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return badInput(fmt.Errorf("--listen: %w", err))
	}
	var calls, throttled atomic.Int64
	cancel := srv.Recorder().Subscribe(func(c fakeaws.Call) {
		calls.Add(1)
		if c.Outcome == fakeaws.OutcomeThrottled {
			throttled.Add(1)
		}
	})
	defer cancel()
	if weak := fakeaws.WeakCredentials(o.accessKeyID, o.secretAccessKey); weak != "" {
		log.Info("WARNING: weak credentials: "+weak+"; anyone who can reach the listener and guess them can change the fake AWS", "listen", ln.Addr().String())
	}
	log.Info("fakeaws listening", "url", "http://"+ln.Addr().String(), "profile", o.profile, "region", o.region, "timeScale", o.timeScale)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		var lastC, lastT int64
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				c, th := calls.Load(), throttled.Load()
				log.Info("rates", "callsPerSec", c-lastC, "throttledPerSec", th-lastT, "totalCalls", c, "scenarioTime", srv.Now().Format(time.RFC3339))
				lastC, lastT = c, th
			}
		}
	}()
	if ready != nil {
		ready <- "http://" + ln.Addr().String()
	}
	err = srv.Serve(ctx, ln)
	<-done
	log.Info("fakeaws stopped", "totalCalls", calls.Load(), "throttled", throttled.Load())
	return err
}

// bootDelay maps the flag's 0 (running at once) to the option's negative, whose 0 means the default.
func bootDelay(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
