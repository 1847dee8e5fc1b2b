package scenario

import "encoding/json"

// Step is one timeline entry: an action, or a waitFor. When it runs: At (offset from the start of
// the measured phase, or "random" within Within after the previous step) or After (delay after the
// previous step); neither means right after the previous step.
type Step struct {
	// Action is restart, churn, containerRestart, awsFault, awsDrift or wait.
	Action string `json:"action,omitempty"`
	// WaitFor is steadyState (every invariant holds, nothing pending) or leader (the new instance
	// of every earlier restart leads), instead of an action.
	WaitFor string `json:"waitFor,omitempty"`
	// At is an offset from the start of the measured phase, or "random" (within Within after the
	// previous step).
	At *At `json:"at,omitempty"`
	// After is a delay after the previous step. Default: none, right after it.
	After *Duration `json:"after,omitempty"`
	// Within bounds "at: random": a uniform offset in [0, Within) after the previous step. Default 10s.
	Within *Duration `json:"within,omitempty"`
	// Timeout bounds waitFor. Default 10m.
	Timeout *Duration `json:"timeout,omitempty"`
	// StalledAfter (waitFor steadyState) gives the wait up before its timeout once nothing has
	// progressed for this long while changes remain unapplied: no change made or applied, no AWS
	// call that changed something, no watched object changed, no restart's replacement taking the
	// lead. The run then ends as after a timeout (the unapplied changes listed, exit 3), with a
	// "stalled" event saying so. Default: never (only the timeout ends the wait): a controller whose
	// only progress is a periodic resync (external-dns's interval, a drift check) is quiet by design.
	StalledAfter *Duration `json:"stalledAfter,omitempty"`

	// restart: Mode crash (default) or leaderHandover. Await leader (default) completes the step when
	// the new instance leads (its caches have synced); none completes it once the new instance has
	// been started, so the next steps' changes land while it is still starting up.
	// Downtime (default 0) is how long after the stop the replacement starts (a crashed pod's
	// restart or rescheduling); changes made meanwhile are pending when it starts. TTFMR and steady
	// state count from the stop plus the downtime.
	Mode     string    `json:"mode,omitempty"`
	Await    string    `json:"await,omitempty"`
	Downtime *Duration `json:"downtime,omitempty"`
	// StripCheckpoints (restart) removes the checkpoint annotations (elbv2.k8s.aws/checkpoint and
	// elbv2.k8s.aws/checkpoint-timestamp) from every binding once the leader stopped, before the
	// replacement starts: the restart of a controller that never saved checkpoints. The harness's
	// own identity writes them, so they are not counted as the controller's writes. The replacement
	// starts after the downtime or once the annotations are gone, whichever is later.
	StripCheckpoints bool `json:"stripCheckpoints,omitempty"`

	// churn: Kind scale, rotate, addTGB, removeTGB, recreateService, staleGate, replaceNode or mixed
	// (default), or an Ingress kind (ingressRule, backendPort, backendTargetPort, secretContent,
	// ingressAnnotation; needs fleet.ingresses); Services is how many TGBs, or Ingresses for the
	// Ingress kinds (default 10; not for replaceNode); Duration is how long
	// recreateService keeps a Service deleted (default 10s); Count is how many nodes replaceNode
	// replaces, one after another (default 1, at most fleet.nodes).
	// awsDrift: Kind removeTarget (default) or revokeIngress; Count is how many.
	Kind     string `json:"kind,omitempty"`
	Services int    `json:"services,omitempty"`
	Count    int    `json:"count,omitempty"`
	// churn kind patch: Group names the object group (fleet.objects) whose objects change; Count
	// is how many, distinct, drawn with the seed (default 1); Patch is a JSON merge patch, its
	// string values Go templates like the group's template plus {{.Seq}} (the change's number);
	// Applied is a CEL condition over object (the object as patched) and aws that holds once AWS
	// shows the change; Mutations are the AWS operations that apply it: the first successful one
	// naming the object's AWS resource (any one, for a group without an aws mapping or mapped to
	// ec2Instance, e.g. Pods a node provisioner launches instances for) is its first meaningful
	// mutation (default: none, and the change counts from when AWS was seen to show it).
	// churn kind create: Count new objects of Group from its template, at indexes after every one
	// made so far; Applied (optional) is over object as observed (its status included) and aws,
	// default the group's ready and invariant. churn kind delete: Count objects of Group drawn with
	// the seed; applied once the object is gone and AWS no longer holds the resource the group's
	// aws names (no Applied). Mutations as for a patch (e.g. CreateTargetGroup, DeleteTargetGroup).
	Group     string          `json:"group,omitempty"`
	Patch     json.RawMessage `json:"patch,omitempty"`
	Applied   string          `json:"applied,omitempty"`
	Mutations []string        `json:"mutations,omitempty"`
	// containerRestart: Pods is how many pods (chosen among readiness-gated ones first). Default 1.
	Pods int `json:"pods,omitempty"`

	// awsFault: Fault is profile, limit, errors, outage or latency; Duration bounds it (0 = rest of run).
	Fault string `json:"fault,omitempty"`
	// Profile (fault profile) switches to another throttle profile: aws-documented, aws-2026, unlimited.
	Profile string `json:"profile,omitempty"`
	// Limits (fault limit) replaces the buckets of operations or categories, as aws.overrides.
	Limits map[string]Limit `json:"limits,omitempty"`
	// Operation (fault errors or latency) is the API operation hit, or "*" for all.
	Operation string `json:"operation,omitempty"`
	// Rate (fault errors) is the fraction of its calls that fail.
	Rate float64 `json:"rate,omitempty"`
	// Code (fault errors) is the AWS error code. Default ServiceUnavailable.
	Code string `json:"code,omitempty"`
	// AWSServices limits an outage (fault outage). Default elbv2 and ec2.
	AWSServices []string `json:"awsServices,omitempty"`
	// Latency (fault latency) is added to the operation's calls.
	Latency *Latency `json:"latency,omitempty"`

	// wait and awsFault: Duration.
	Duration *Duration `json:"duration,omitempty"`
}

// Action names.
const (
	ActionRestart          = "restart"
	ActionChurn            = "churn"
	ActionContainerRestart = "containerRestart"
	ActionAWSFault         = "awsFault"
	ActionAWSDrift         = "awsDrift"
	ActionWait             = "wait"

	WaitForSteadyState = "steadyState"
	// WaitForLeader waits until the new instance of every earlier restart leads (the restarts with
	// await: none), e.g. to make changes only once the new leader holds its Lease.
	WaitForLeader = "leader"

	RestartCrash          = "crash"
	RestartLeaderHandover = "leaderHandover"
	RestartGraceful       = "graceful"

	AwaitLeader = "leader"
	AwaitNone   = "none"

	ChurnScale     = "scale"
	ChurnRotate    = "rotate"
	ChurnAddTGB    = "addTGB"
	ChurnRemoveTGB = "removeTGB"
	ChurnMixed     = "mixed"
	// ChurnRecreateService deletes ip TGBs' Services and creates them again after Duration
	// (default 10s) with unchanged endpoints (upstream #4343).
	ChurnRecreateService = "recreateService"
	// ChurnStaleGate sets one pod's readiness gate of gated TGBs back to False while the checkpoint
	// still matches, as a stale writer does (upstream #4737).
	ChurnStaleGate = "staleGate"
	// ChurnReplaceNode replaces Count nodes, one after another, as a node group's instance refresh
	// does: a new node (and EC2 instance) joins Ready, then the oldest node still Ready turns
	// NotReady. Every instance TGB must register the new instance and deregister the old one on its
	// NodePort. Needs instance TGBs (fleet.instanceShare above 0).
	ChurnReplaceNode = "replaceNode"
	// ChurnDeleteNodes deletes Count Nodes of EC2 instances (cluster.instanceNodes), drawn with the
	// seed, as `kubectl delete node` does; their kubelets do not register them again. A disruption,
	// not a timed change.
	ChurnDeleteNodes = "deleteNodes"
	// ChurnPatch applies a JSON merge patch to objects of a group of fleet.objects.
	ChurnPatch = "patch"
	// ChurnCreate makes new objects of a group of fleet.objects from its template.
	ChurnCreate = "create"
	// ChurnDelete deletes objects of a group of fleet.objects.
	ChurnDelete = "delete"

	DriftRemoveTarget  = "removeTarget"
	DriftRevokeIngress = "revokeIngress"

	FaultProfile = "profile"
	FaultLimit   = "limit"
	FaultErrors  = "errors"
	FaultOutage  = "outage"
	FaultLatency = "latency"
)
