package predict

import "github.com/restartsim/restartsim/predict/queue"

// Model is what one run shows of its restart, in the terms of the queue simulation.
type Model struct {
	Strategy string `json:"strategy"`
	// Fleet is the run's fleet size in the scenario's terms, FleetName says which: its
	// TargetGroupBindings, or its largest object group.
	Fleet     int    `json:"fleet"`
	FleetName string `json:"fleetName"`
	Profile   string `json:"profile"`
	// Buckets are the throttle buckets in force, by category (those the re-read used).
	Buckets map[string]queue.Bucket `json:"buckets"`
	// Start is from the restart's origin to the re-read's first AWS call; CacheSync is the part the
	// replacement spent filling its caches, which grows with the fleet (0: not known).
	Start     float64 `json:"startSeconds"`
	CacheSync float64 `json:"cacheSyncSeconds"`
	// Drain is from the re-read's first call to its last; Settle from its last call to the steady
	// state the run declared.
	Drain  float64 `json:"drainSeconds"`
	Settle float64 `json:"settleSeconds"`
	Kinds  []Kind  `json:"kinds"`
	// Changes are the restart's changes, with where each stood in its kind's queue.
	Changes []QueuedChange `json:"changes"`
	// Calls counts the re-read's AWS calls that took a token; Throttled those turned away.
	Calls     int `json:"calls"`
	Throttled int `json:"throttled"`
	// PaceScale is the factor every kind's pace (from the calm gaps between calls) was scaled by so
	// that the model, run at the fleet's own size, turns away as many calls as AWS did:
	// ModelThrottled (1 and 0 for a run AWS never throttled).
	PaceScale      float64 `json:"paceScale"`
	ModelThrottled int     `json:"modelThrottled"`
}

// Kind is one kind of resource the replacement re-read.
type Kind struct {
	Name    string `json:"name"`
	Objects int    `json:"objects"`
	// Unreached are the objects of the kind AWS held before the restart (calls named them) that the
	// re-read had not reached when the run declared its steady state: they wait at the end of the
	// queue, and count in Objects.
	Unreached int `json:"unreached"`
	// Scales tells the kind's count grows with the fleet (it has at least half as many objects as
	// the fleet); the others, such as a fleet's few load balancers, stay.
	Scales  bool    `json:"scales"`
	Workers int     `json:"workers"`
	Start   float64 `json:"startSeconds"` // from the re-read's first call
	// Pace is the seconds a worker spends on a call when no token is missing: the request and the
	// controller's own work around it.
	Pace float64 `json:"paceSeconds"`
	// Throttled is how many of an object's calls AWS turned away, and Backoff how long each cost its
	// worker before the retry (the SDK's backoff): time in which the worker asks for no token.
	Throttled float64 `json:"throttledPerObject"`
	Backoff   float64 `json:"backoffSeconds"`
	// PerObject is the calls an object costs, by bucket, in the order the kind first used them.
	PerObject []BucketCalls `json:"perObject"`
	// positions is each resource's place in the re-read (the order of first calls).
	positions map[string]int
}

// BucketCalls is an object's average calls on one bucket.
type BucketCalls struct {
	Bucket string  `json:"bucket"`
	Calls  float64 `json:"calls"`
	// Mutating: the bucket's calls changed AWS. At a restart they apply the restart's changes, whose
	// number does not grow with the fleet, so at a larger fleet they fall on fewer objects each.
	Mutating bool `json:"mutating,omitempty"`
}

// QueuedChange is one of the restart's changes (a results.Change) in the model's terms: where its
// resource stood in its kind's queue, and how long after the restart's origin it was made.
type QueuedChange struct {
	ID string `json:"id"`
	// Kind and Position are the kind of the resource the change's first mutation named and that
	// resource's place in the kind's re-read ("" and -1: not found in the call log).
	Kind     string `json:"kind"`
	Position int    `json:"position"`
	// Lead is how long after the restart's origin the change was made (0 when made while the
	// controller was down): its blind time counts from then.
	Lead float64 `json:"leadSeconds"`
	// Blind is the measured blind time (nil: never applied).
	Blind *float64 `json:"blindSeconds"`
}
