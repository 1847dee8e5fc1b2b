// Package throttle models AWS's per-account token buckets: ELB shares one bucket per category across its
// operations, EC2 has one bucket per action sized by the action's category. Buckets run in scenario time (the
// caller passes now), so a time-scale factor speeds refill up without changing any configured number.
package throttle

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limit is a token bucket: Rate tokens per scenario second, Burst capacity. Rate < 0 means unlimited.
type Limit struct {
	Rate  float64 `json:"rate"`
	Burst int     `json:"burst"`
}

// Unlimited never throttles.
var Unlimited = Limit{Rate: -1}

func (l Limit) limiter(now time.Time) *rate.Limiter {
	if l.Rate < 0 || math.IsInf(l.Rate, 1) {
		return rate.NewLimiter(rate.Inf, 0)
	}
	lim := rate.NewLimiter(rate.Limit(l.Rate), l.Burst)
	// Start full: rate.NewLimiter's first use fills the bucket relative to that time.
	lim.AllowN(now, 0)
	return lim
}

// Categories.
const (
	ELBRegistration      = "elbv2/registration"
	ELBDescribe          = "elbv2/describe"
	ELBMutating          = "elbv2/mutating"
	ELBResourceIntensive = "elbv2/resource-intensive"
	EC2Describe          = "ec2/describe"
	EC2Unfiltered        = "ec2/unfiltered-describe"
	EC2Mutating          = "ec2/mutating"
	EC2SecurityGroup     = "ec2/security-group-ingress"
	// EC2ResourceIntensive is the request bucket of CreateFleet, the same size and refill as the
	// mutating bucket.
	EC2ResourceIntensive = "ec2/resource-intensive"
	// The actions AWS's request token table gives figures of their own (each still evaluated on its own,
	// as every EC2 action is): RunInstances 5 tokens, 2 a second; TerminateInstances 100, 5 a second;
	// CreateTags and DeleteTags 100, 10 a second.
	EC2RunInstancesRequest       = "ec2/request/RunInstances"
	EC2TerminateInstancesRequest = "ec2/request/TerminateInstances"
	EC2CreateTagsRequest         = "ec2/request/CreateTags"
	EC2DeleteTagsRequest         = "ec2/request/DeleteTags"
	// The resource token buckets of AWS's "Request throttling for the Amazon EC2 API" (Resource token
	// bucket sizes and refill rates): one token per instance launched or terminated, taken besides the
	// request token. RunInstances: 1,000 tokens, 2 per second; TerminateInstances: 1,000, 20 per second.
	// The table lists no other launch action (StartInstances and StopInstances, which fakeaws does not
	// serve, aside): CreateFleet takes request tokens only.
	EC2RunInstancesResource       = "ec2/resource/RunInstances"
	EC2TerminateInstancesResource = "ec2/resource/TerminateInstances"
	// STSRequest is the one quota AWS documents for STS: 600 requests per second per account and region,
	// shared by GetCallerIdentity, AssumeRole and the rest (no burst is documented: one second's worth).
	STSRequest = "sts/request"
	// Route53Request is Route53's one documented quota: five requests per second per account, shared by every
	// operation of the API (no burst is documented: one second's worth).
	Route53Request = "route53/request"
	// SSMParameterStore is Parameter Store's standard throughput: 40 transactions per second per account and
	// region, shared by GetParameter, GetParameters and GetParametersByPath (no burst is documented: one
	// second's worth).
	SSMParameterStore = "ssm/parameter-store"
	// IAMRequest and EKSRequest are the buckets of IAM and EKS, for which AWS documents no request rate: no
	// profile limits them, an override can.
	IAMRequest = "iam/request"
	EKSRequest = "eks/request"
	// ACM throttles each operation in its own bucket, at the requests per second of ACM's "API rate quotas"
	// table (no burst is documented: one second's worth).
	ACMAddTags        = "acm/AddTagsToCertificate"
	ACMDelete         = "acm/DeleteCertificate"
	ACMDescribe       = "acm/DescribeCertificate"
	ACMImport         = "acm/ImportCertificate"
	ACMList           = "acm/ListCertificates"
	ACMListTags       = "acm/ListTagsForCertificate"
	ACMRequest        = "acm/RequestCertificate"
	acmCategoryPrefix = "acm/"
)

// acmLimits are ACM's documented request rates per operation.
var acmLimits = map[string]Limit{
	ACMAddTags: {5, 5}, ACMDelete: {10, 10}, ACMDescribe: {10, 10}, ACMImport: {1, 1}, ACMList: {1, 1},
	ACMListTags: {10, 10}, ACMRequest: {5, 5},
}

// Profile names.
const (
	ProfileDocumented = "aws-documented"
	Profile2026       = "aws-2026"
	ProfileUnlimited  = "unlimited"
)

var profiles = map[string]map[string]Limit{
	ProfileDocumented: {
		ELBRegistration: {4, 20}, ELBDescribe: {10, 40}, ELBMutating: {3, 20}, ELBResourceIntensive: {0.2, 10},
		EC2Describe: {20, 100}, EC2Unfiltered: {10, 50}, EC2Mutating: {5, 50}, EC2SecurityGroup: {5, 50},
		EC2ResourceIntensive: {5, 50}, EC2RunInstancesResource: {2, 1000},
		EC2TerminateInstancesResource: {20, 1000}, EC2RunInstancesRequest: {2, 5}, EC2TerminateInstancesRequest: {5, 100},
		EC2CreateTagsRequest: {10, 100}, EC2DeleteTagsRequest: {10, 100},
		STSRequest: {600, 600}, Route53Request: {5, 5}, SSMParameterStore: {40, 40},
	},
	Profile2026: {
		ELBRegistration: {4, 20}, ELBDescribe: {50, 200}, ELBMutating: {3, 20}, ELBResourceIntensive: {0.2, 10},
		EC2Describe: {20, 100}, EC2Unfiltered: {10, 50}, EC2Mutating: {5, 50}, EC2SecurityGroup: {5, 50},
		EC2ResourceIntensive: {5, 50}, EC2RunInstancesResource: {2, 1000},
		EC2TerminateInstancesResource: {20, 1000}, EC2RunInstancesRequest: {2, 5}, EC2TerminateInstancesRequest: {5, 100},
		EC2CreateTagsRequest: {10, 100}, EC2DeleteTagsRequest: {10, 100},
		STSRequest: {600, 600}, Route53Request: {5, 5}, SSMParameterStore: {40, 40},
	},
	ProfileUnlimited: {},
}

func init() {
	for _, name := range []string{ProfileDocumented, Profile2026} {
		for k, l := range acmLimits {
			profiles[name][k] = l
		}
	}
}

// Profiles lists the known profile names.
func Profiles() []string {
	out := make([]string, 0, len(profiles))
	for k := range profiles {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ValidProfile reports whether name is a known profile.
func ValidProfile(name string) bool { _, ok := profiles[name]; return ok }

// IsCategory reports whether key names a category (rather than an operation).
func IsCategory(key string) bool {
	_, ok := profiles[ProfileDocumented][key]
	return ok || key == IAMRequest || key == EKSRequest
}

// unfilteredEC2 are the describes AWS charges to the smaller bucket when called without filters or paging.
var unfilteredEC2 = map[string]bool{
	"DescribeInstances": true, "DescribeNetworkInterfaces": true, "DescribeSecurityGroups": true,
	"DescribeSnapshots": true, "DescribeSpotInstanceRequests": true, "DescribeVolumes": true,
}

// ec2ActionBuckets are the EC2 actions with request figures of their own, by action.
var ec2ActionBuckets = map[string]string{
	"RunInstances": EC2RunInstancesRequest, "TerminateInstances": EC2TerminateInstancesRequest,
	"CreateTags": EC2CreateTagsRequest, "DeleteTags": EC2DeleteTagsRequest,
}

// Category returns the bucket category of an operation. unfiltered tells whether an EC2 describe carried no
// filter, no ID list and no MaxResults.
func Category(service, op string, unfiltered bool) string {
	switch service {
	case "elbv2":
		switch {
		case op == "RegisterTargets" || op == "DeregisterTargets":
			return ELBRegistration
		case op == "CreateLoadBalancer" || op == "SetSubnets":
			return ELBResourceIntensive
		case strings.HasPrefix(op, "Describe"):
			return ELBDescribe
		default:
			return ELBMutating
		}
	case "ec2":
		switch {
		case strings.HasPrefix(op, "AuthorizeSecurityGroup") || strings.HasPrefix(op, "RevokeSecurityGroup"):
			return EC2SecurityGroup
		case ec2ActionBuckets[op] != "":
			return ec2ActionBuckets[op]
		case op == "CreateFleet":
			return EC2ResourceIntensive
		case strings.HasPrefix(op, "Describe"):
			if unfiltered && unfilteredEC2[op] {
				return EC2Unfiltered
			}
			return EC2Describe
		default:
			return EC2Mutating
		}
	case "sts":
		return STSRequest
	case "route53":
		return Route53Request
	case "ssm":
		return SSMParameterStore
	case "iam":
		return IAMRequest
	case "eks":
		return EKSRequest
	case "acm":
		return acmCategoryPrefix + op
	}
	return ""
}

type bucket struct {
	lim   *rate.Limiter
	limit Limit

	mu   sync.Mutex
	last time.Time // the latest time a call took tokens at
}

// take takes n tokens at now, or at the latest time a call took them if that is later. Concurrent
// calls reach the bucket in another order than their arrival times, and rate.Limiter, given a time
// before its last, moves its clock back to it: the next call would be refilled twice for that span.
func (b *bucket) take(now time.Time, n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Before(b.last) {
		now = b.last
	}
	b.last = now
	return b.lim.AllowN(now, n)
}

// Throttler holds the buckets of one account.
type Throttler struct {
	mu        sync.Mutex
	profile   string
	overrides map[string]Limit
	buckets   map[string]*bucket
}

// New returns a Throttler; overrides are keyed by operation name or category.
func New(profile string, overrides map[string]Limit) (*Throttler, error) {
	if !ValidProfile(profile) {
		return nil, fmt.Errorf("unknown throttle profile %q (known: %s)", profile, strings.Join(Profiles(), ", "))
	}
	t := &Throttler{profile: profile, overrides: map[string]Limit{}, buckets: map[string]*bucket{}}
	for k, v := range overrides {
		t.overrides[k] = v
	}
	return t, nil
}

// SetProfile switches profile; all buckets restart full.
func (t *Throttler) SetProfile(name string) error {
	if !ValidProfile(name) {
		return fmt.Errorf("unknown throttle profile %q (known: %s)", name, strings.Join(Profiles(), ", "))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.profile = name
	t.buckets = map[string]*bucket{}
	return nil
}

// Profile returns the current profile name.
func (t *Throttler) Profile() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.profile
}

// SetLimit overrides one operation or category; the affected buckets restart full.
func (t *Throttler) SetLimit(key string, l Limit) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.overrides[key] = l
	t.buckets = map[string]*bucket{}
}

// ClearLimit removes an override.
func (t *Throttler) ClearLimit(key string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.overrides, key)
	t.buckets = map[string]*bucket{}
}

// resolve returns the bucket key and limit for an operation.
func (t *Throttler) resolve(service, op string, unfiltered bool) (string, Limit) {
	if l, ok := t.overrides[op]; ok {
		return "op/" + op, l
	}
	cat := Category(service, op, unfiltered)
	l, ok := t.overrides[cat]
	if !ok {
		l, ok = profiles[t.profile][cat]
		if !ok {
			l = Unlimited
		}
	}
	if service == "ec2" && ec2ActionBuckets[op] == "" {
		return cat + "/" + op, l
	}
	return cat, l
}

// Allow takes one token for the call at scenario time now. It returns the bucket key and whether the call may
// proceed.
func (t *Throttler) Allow(service, op string, unfiltered bool, now time.Time) (string, bool) {
	t.mu.Lock()
	key, l := t.resolve(service, op, unfiltered)
	b, ok := t.buckets[key]
	if !ok {
		b = &bucket{lim: l.limiter(now), limit: l}
		t.buckets[key] = b
	}
	t.mu.Unlock()
	return key, b.take(now, 1)
}

// resourceBuckets are the EC2 actions that also take one resource token per instance.
var resourceBuckets = map[string]string{
	"RunInstances": EC2RunInstancesResource, "TerminateInstances": EC2TerminateInstancesResource,
}

// AllowResources takes n resource tokens for an EC2 action that launches or terminates n instances. An
// action without a resource bucket is always allowed (key ""). A bucket is overridden by its key.
func (t *Throttler) AllowResources(op string, n int, now time.Time) (string, bool) {
	key, ok := resourceBuckets[op]
	if !ok || n <= 0 {
		return "", true
	}
	t.mu.Lock()
	l, ok := t.overrides[key]
	if !ok {
		if l, ok = profiles[t.profile][key]; !ok {
			l = Unlimited
		}
	}
	b, ok := t.buckets[key]
	if !ok {
		b = &bucket{lim: l.limiter(now), limit: l}
		t.buckets[key] = b
	}
	t.mu.Unlock()
	return key, b.take(now, n)
}

// BucketState is a bucket's fill at a point in time. Tokens is +Inf for an unlimited bucket.
type BucketState struct {
	Key    string  `json:"key"`
	Tokens float64 `json:"tokens"`
	Limit  Limit   `json:"limit"`
}

// MarshalJSON writes an unlimited bucket's tokens as null, since JSON has no infinity.
func (b BucketState) MarshalJSON() ([]byte, error) {
	type wire struct {
		Key       string   `json:"key"`
		Tokens    *float64 `json:"tokens"`
		Limit     Limit    `json:"limit"`
		Unlimited bool     `json:"unlimited,omitempty"`
	}
	w := wire{Key: b.Key, Limit: b.Limit, Unlimited: math.IsInf(b.Tokens, 1)}
	if !w.Unlimited {
		w.Tokens = &b.Tokens
	}
	return json.Marshal(w)
}

// Buckets returns every bucket that has been used since the last reconfiguration, sorted by key.
func (t *Throttler) Buckets(now time.Time) []BucketState {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]BucketState, 0, len(t.buckets))
	for k, b := range t.buckets {
		tokens := b.lim.TokensAt(now)
		if b.limit.Rate < 0 {
			tokens = math.Inf(1)
		}
		out = append(out, BucketState{Key: k, Tokens: tokens, Limit: b.limit})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// ProfileLimits returns a copy of a profile's buckets by category; false for an unknown profile.
func ProfileLimits(name string) (map[string]Limit, bool) {
	p, ok := profiles[name]
	if !ok {
		return nil, false
	}
	out := make(map[string]Limit, len(p))
	for k, l := range p {
		out[k] = l
	}
	return out, true
}
