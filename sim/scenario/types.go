package scenario

import (
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/objects"
	"github.com/restartsim/restartsim/sim/workload"
)

// APIVersion and Kind identify a scenario file.
const (
	APIVersion = "restartsim/v1"
	Kind       = "Scenario"
)

// Scenario is one simulation: a fleet, the controller strategies to compare, a timeline of events
// and the limits its results must meet.
type Scenario struct {
	// APIVersion must be restartsim/v1.
	APIVersion string `json:"apiVersion"`
	// Kind must be Scenario.
	Kind string `json:"kind"`
	// Name names the output folder (out/<name>/<time>/) and the report. Required.
	Name string `json:"name"`
	// Description is free text for people.
	Description string `json:"description,omitempty"`
	// Seed drives every random choice: same seed, same fleet and timeline. Default 1.
	Seed int64 `json:"seed,omitempty"`
	// TimeScale speeds the run up: AWS rates × TimeScale, every delay ÷ TimeScale. Results are in
	// scenario time. Default 1.
	TimeScale float64 `json:"timeScale,omitempty"`
	// Repeats runs each strategy this many times (seeds Seed, Seed+1, ...); summaries are medians. Default 1.
	Repeats int `json:"repeats,omitempty"`
	// Cluster is the Kubernetes API server the run uses. Default: envtest.
	Cluster Cluster `json:"cluster,omitempty"`
	// AWS configures the fake AWS (throttles, latency, errors, target health timing).
	AWS AWS `json:"aws,omitempty"`
	// Fleet is what exists before the measured phase. Required.
	Fleet FleetSpec `json:"fleet"`
	// Controller is the controller under test, one entry per strategy to compare. Required.
	Controller Controller `json:"controller"`
	// Timeline is the measured phase, step by step. Required.
	Timeline []Step `json:"timeline"`
	// Thresholds are limits on each strategy's results; a breach makes simulate exit 4.
	Thresholds []Threshold `json:"thresholds,omitempty"`
	// Gate are the rules `restartsim gate` checks, against a baseline run and absolute limits;
	// results.json holds them as written.
	Gate []results.GateRule `json:"gate,omitempty"`
	// AB compares two builds of one strategy (see AB); `restartsim gate` judges the comparison.
	AB *AB `json:"ab,omitempty"`
	// Predict forecasts each strategy's restart at larger fleets from this run's AWS call log, as
	// `restartsim predict` does; the forecasts are printed and written to results.json.
	Predict *Predict `json:"predict,omitempty"`

	// src is where Parse read the scenario (nil for one built in code).
	src *source
	// compiled are the object groups and object churn steps as Parse compiled them (nil for a
	// scenario built in code, or without object groups).
	compiled *CompiledObjects
}

// Cluster selects the Kubernetes API server: envtest (default) or an existing cluster.
type Cluster struct {
	// Envtest starts a local kube-apiserver and etcd (the default).
	Envtest *Envtest `json:"envtest,omitempty"`
	// Kubeconfig runs on an existing cluster instead (as simulate --kubeconfig).
	Kubeconfig *Kubeconfig `json:"kubeconfig,omitempty"`
	// CRDs are more CustomResourceDefinition files or directories (their .yaml, .yml and .json files)
	// to install on envtest besides the harness's own CRDs (TargetGroupBinding, IngressClassParams),
	// e.g. the CRDs an external controller needs to start. A CRD of the same name replaces the
	// harness's (an external controller's own schema of a shared kind wins). CRDs are part of the cluster, not of one
	// controller: every strategy of the run, and the fleet they share, is served by the same API.
	// ${VAR} is replaced by the environment variable VAR; paths are relative to the working directory.
	// On a kubeconfig cluster they, and the harness's own, must be served already (the run checks
	// before it creates anything) or are installed with --install-crds.
	CRDs []string `json:"crds,omitempty"`
	// EndpointSlices says who writes the Services' EndpointSlices: "simulated" (the harness's own
	// endpoint controller; Services are selectorless) or "cluster" (the cluster's EndpointSlice
	// controller; Services select their pods, and a pod change reaches the controller under test
	// through a real slice update). Default: simulated on envtest; on a kubeconfig cluster, cluster
	// when a kube-controller-manager holds its Lease, else simulated.
	EndpointSlices string `json:"endpointSlices,omitempty"`
	// Scheduler starts kube-scheduler (built by `restartsim assets --with kube-scheduler`) beside
	// envtest's kube-apiserver, so pods created without a nodeName are bound to nodes by the real
	// scheduler, as a node provisioner such as Karpenter expects. Envtest only. Default false.
	Scheduler bool `json:"scheduler,omitempty"`
	// InstanceNodes plays the kubelet of fakeaws's EC2 instances: each running instance registers a
	// Node (named and labelled as on EKS, with the labels and taints of its user data and the
	// capacity of its instance type), Ready after joinDelay, running the pods bound to it; a shut-down
	// or vanished instance's Node goes NotReady and, removeAfter later, away with its pods. Unset: no
	// instance becomes a node.
	InstanceNodes *InstanceNodes `json:"instanceNodes,omitempty"`
}

// InstanceNodes times the simulated kubelets of EC2 instances (scenario time).
type InstanceNodes struct {
	// JoinDelay is how long a registered Node stays NotReady (kubelet, runtime and CNI starting).
	// Default 15s.
	JoinDelay *Duration `json:"joinDelay,omitempty"`
	// RemoveAfter is how long a shut-down instance's Node stays NotReady before it and its pods are
	// deleted. Default 5s.
	RemoveAfter *Duration `json:"removeAfter,omitempty"`
}

// Values of Cluster.EndpointSlices.
const (
	EndpointSlicesSimulated = "simulated"
	EndpointSlicesCluster   = "cluster"
)

// Envtest starts a local kube-apiserver and etcd.
type Envtest struct {
	// AssetsDir overrides where kube-apiserver and etcd are found (default: $KUBEBUILDER_ASSETS,
	// setup-envtest's store, bin/k8s/<version>, the user cache of restartsim assets).
	AssetsDir string `json:"assetsDir,omitempty"`
}

// Kubeconfig uses an existing cluster; the fleet lives in its own labelled namespaces.
type Kubeconfig struct {
	// Path is the kubeconfig file. Default: $KUBECONFIG or ~/.kube/config.
	Path string `json:"path,omitempty"`
	// Context is the kubeconfig context. Default: the current one.
	Context string `json:"context,omitempty"`
}

// AWS configures fakeaws.
type AWS struct {
	// Profile is the throttle profile of the measured phase: aws-documented (default), aws-2026, unlimited.
	Profile string `json:"profile,omitempty"`
	// WarmupProfile is the throttle profile while the fleet converges before the timeline. Default: Profile.
	WarmupProfile string `json:"warmupProfile,omitempty"`
	// Region is the regional services' AWS region. Global services (Route53, IAM) accept it or us-east-1.
	// Default us-west-2.
	Region string `json:"region,omitempty"`
	// Overrides replaces buckets of operations or categories (e.g. "elbv2/registration") in the measured phase.
	Overrides map[string]Limit `json:"overrides,omitempty"`
	// Latency is injected per operation ("*" for all), in scenario time.
	Latency map[string]Latency `json:"latency,omitempty"`
	// HealthyAfter is how long a new target stays "initial". Default 10s.
	HealthyAfter *Duration `json:"healthyAfter,omitempty"`
	// DeregistrationDelay is how long a deregistered target drains. Default 300s.
	DeregistrationDelay *Duration `json:"deregistrationDelay,omitempty"`
	// Faults are error rates that hold for the whole measured phase.
	Faults []ErrorFault `json:"faults,omitempty"`
	// HostedZones are Route53 public hosted zones created before the fleet, for a DNS controller (e.g.
	// external-dns) that only writes records into zones that exist. Default: none.
	HostedZones *HostedZones `json:"hostedZones,omitempty"`
	// IAMRoles are IAM roles (names) created before the fleet, e.g. the node role an EC2NodeClass's
	// spec.role names, which Karpenter adds to the instance profiles it creates. Default: none.
	IAMRoles []string `json:"iamRoles,omitempty"`
	// EKSCluster records the run's cluster in EKS DescribeCluster (named as {{.ClusterName}}, the API
	// server's URL and CA, its Kubernetes version), which Karpenter reads for the service CIDR and
	// endpoint its node user data carries. Default false.
	EKSCluster bool `json:"eksCluster,omitempty"`
}

// Limit is a token bucket: Rate per scenario second, Burst capacity; Rate < 0 is unlimited.
type Limit struct {
	// Rate is the tokens added per scenario second; below 0, unlimited.
	Rate float64 `json:"rate"`
	// Burst is the bucket's capacity.
	Burst int `json:"burst"`
}

// Latency is a base latency plus uniform jitter in [0, Jitter).
type Latency struct {
	// Base is added to every call (scenario time).
	Base Duration `json:"base"`
	// Jitter adds a uniform random delay below it. Default 0.
	Jitter Duration `json:"jitter,omitempty"`
}

// ErrorFault makes a fraction of an operation's calls fail with Code.
type ErrorFault struct {
	// Operation is an API operation name or "*" for all.
	Operation string `json:"operation"`
	// Rate is the fraction of the calls that fail, from 0 to 1.
	Rate float64 `json:"rate"`
	// Code is the AWS error code. Default ServiceUnavailable.
	Code string `json:"code,omitempty"`
}

// FleetSpec is what the simulation creates before the measured phase.
type FleetSpec struct {
	// TargetGroupBindings is the number of TGBs, one Service and target group each; 0 only with
	// objects.
	TargetGroupBindings int `json:"targetGroupBindings"`
	// Namespaces spreads the fleet. Default ceil(TGBs / 500).
	Namespaces int `json:"namespaces,omitempty"`
	// PodsPerService is the number of endpoints per Service. Default 3.
	PodsPerService int `json:"podsPerService,omitempty"`
	// Nodes hosts the pods and backs instance targets. Default max(3, TGBs/100).
	Nodes int `json:"nodes,omitempty"`
	// InstanceShare is the fraction of TGBs with instance targets (the rest are ip). Default 0.
	InstanceShare float64 `json:"instanceShare,omitempty"`
	// ReadinessGateShare is the fraction of ip TGBs whose pods carry the readiness gate. Default 0.
	ReadinessGateShare float64 `json:"readinessGateShare,omitempty"`
	// NetworkingShare is the fraction of TGBs with spec.networking ingress rules. Default 0.
	NetworkingShare float64 `json:"networkingShare,omitempty"`
	// TargetGroupProtocolShare is the fraction of TGBs whose spec sets targetGroupProtocol (HTTP,
	// their target group's). Default 0.
	TargetGroupProtocolShare float64 `json:"targetGroupProtocolShare,omitempty"`
	// AssumeRoleShare is the fraction of TGBs whose spec sets iamRoleArnToAssume (a role in the
	// target group's account), every other one with assumeRoleExternalId. The reference controller
	// does not assume the role; the AWS Load Balancer Controller calls STS AssumeRole on a full
	// reconcile, which fakeaws does not serve. Default 0.
	AssumeRoleShare float64 `json:"assumeRoleShare,omitempty"`
	// NamedPortShare is the fraction of ip TGBs whose Service has a second port (metrics, 9090),
	// listed in its EndpointSlices too, and whose serviceRef.port names the Service port (http)
	// instead of giving its number. Default 0.
	NamedPortShare float64 `json:"namedPortShare,omitempty"`
	// DuplicateEndpointShare is the fraction of ip TGBs whose Service has a second EndpointSlice
	// listing the first endpoint of its slice again, as the EndpointSlice controller does while it
	// moves an endpoint between slices. Needs the simulated EndpointSlices
	// (cluster.endpointSlices simulated). Default 0.
	DuplicateEndpointShare float64 `json:"duplicateEndpointShare,omitempty"`
	// Concurrency is the number of parallel creators. Default 32.
	Concurrency int `json:"concurrency,omitempty"`
	// ContainerRestartDelay is how long a containerRestart keeps the container down. Default 10s.
	ContainerRestartDelay *Duration `json:"containerRestartDelay,omitempty"`
	// Ingresses adds the Ingress side: ALB Ingresses in groups, their backend Services, TLS and OIDC
	// Secrets, and NLB Services of type LoadBalancer, none with a TargetGroupBinding or target group
	// of its own (the controllers under test make them). Default: none.
	Ingresses *Ingresses `json:"ingresses,omitempty"`
	// Objects are groups of objects of any kind, custom resources included, that the controller
	// under test owns (see ObjectGroup); with them targetGroupBindings may be 0. Default: none.
	Objects []objects.Group `json:"objects,omitempty"`
}

// Ingresses is the Ingress side of the fleet. Its Services have fleet.podsPerService pods each and
// are spread over fleet.namespaces like the TGBs.
type Ingresses struct {
	// Count is the number of ALB Ingresses (IngressClass alb, target-type ip, scheme internet-facing).
	// Required (0 with loadBalancerServices above 0: NLB Services only).
	Count int `json:"count"`
	// GroupSize is the number of Ingresses that share one ALB (alb.ingress.kubernetes.io/group.name,
	// in group.order); the last group takes the remainder. Default 5.
	GroupSize int `json:"groupSize,omitempty"`
	// TLSShare is the fraction of Ingresses with an HTTPS listener: a kubernetes.io/tls Secret with a
	// self-signed certificate made from the seed, and an ACM ARN in certificate-arn. Default 0.
	TLSShare float64 `json:"tlsShare,omitempty"`
	// OIDCShare is the fraction of Ingresses that authenticate with OIDC (auth-type oidc, a client
	// Secret with clientID and clientSecret named in auth-idp-oidc). ALB authenticates on HTTPS
	// listeners only, so they are drawn among the TLS ones: at most tlsShare. Default 0.
	OIDCShare float64 `json:"oidcShare,omitempty"`
	// ServicesPerIngress is the number of backend Services of each Ingress, one path each. Default 2.
	ServicesPerIngress int `json:"servicesPerIngress,omitempty"`
	// LoadBalancerServices is the number of Services of type LoadBalancer (loadBalancerClass
	// service.k8s.aws/nlb, aws-load-balancer-type external, nlb-target-type ip). Default 0.
	LoadBalancerServices int `json:"loadBalancerServices,omitempty"`
}

// WorkloadSpec is the workload spec of the fleet, defaulted (namespaces take the workload's default
// prefix, which a run on a kubeconfig cluster replaces).
func (f *FleetSpec) WorkloadSpec() workload.Spec {
	return workload.Spec{
		TGBs: f.TargetGroupBindings, Namespaces: f.Namespaces, PodsPerService: f.PodsPerService,
		InstanceShare: f.InstanceShare, ReadinessGateShare: f.ReadinessGateShare,
		NetworkingShare: f.NetworkingShare, TargetGroupProtocolShare: f.TargetGroupProtocolShare,
		AssumeRoleShare: f.AssumeRoleShare, NamedPortShare: f.NamedPortShare, DuplicateEndpointShare: f.DuplicateEndpointShare,
		Nodes: f.Nodes, Ingresses: f.WorkloadIngresses(),
	}.WithDefaults()
}

// WorkloadIngresses is the workload spec of the fleet's Ingress side (the zero spec, which plans
// nothing, without fleet.ingresses).
func (f *FleetSpec) WorkloadIngresses() workload.IngressSpec {
	if f.Ingresses == nil {
		return workload.IngressSpec{}
	}
	in := f.Ingresses
	return workload.IngressSpec{Count: in.Count, GroupSize: in.GroupSize, TLSShare: in.TLSShare, OIDCShare: in.OIDCShare,
		ServicesPerIngress: in.ServicesPerIngress, LoadBalancerServices: in.LoadBalancerServices}
}

// Threshold is a limit on one summary metric (see results.MetricNames) for the named strategies
// (all when empty). Max is a number, or a duration for *_seconds metrics.
type Threshold struct {
	// Metric is a summary metric, e.g. blind_time_p50_seconds, ttfmr_seconds, invariant_violations;
	// unapplied_changes declares how many changes the strategies are expected to leave unapplied,
	// orphaned_resources how many AWS resources of deleted objects they are expected to keep.
	Metric string `json:"metric"`
	// Max is the largest passing value: a number, or a duration for *_seconds metrics.
	Max Number `json:"max"`
	// Strategies the threshold applies to. Default: all.
	Strategies []string `json:"strategies,omitempty"`
}
