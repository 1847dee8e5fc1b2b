package state

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// Config are the account-wide settings of a Store.
type Config struct {
	AccountID           string
	Region              string
	HealthyAfter        time.Duration
	DeregistrationDelay time.Duration
	MaxTargetsPerGroup  int
	MaxTargetGroups     int
	MaxRulesPerGroup    int
	MaxTags             int
	Seed                uint64
	// LoadBalancerActiveAfter is how long a new load balancer stays "provisioning" (scenario time).
	LoadBalancerActiveAfter time.Duration
	MaxLoadBalancers        int // per type (application, network), like AWS's regional quotas
	MaxListenersPerLB       int
	MaxRulesPerListener     int // not counting the default rule
	// Route53PropagationDelay is how long a Route53 change stays PENDING before INSYNC (scenario time).
	Route53PropagationDelay time.Duration
	MaxHostedZones          int
	MaxRecordSetsPerZone    int
	// InstanceBootDelay is how long a launched instance stays "pending" (scenario time).
	InstanceBootDelay time.Duration
	// CertificateIssueDelay is how long a requested ACM certificate stays PENDING_VALIDATION (scenario time).
	CertificateIssueDelay time.Duration
}

// Store is the account state.
type Store struct {
	mu  sync.Mutex
	cfg Config
	src *rand.PCG // rng's source, kept to copy its position in Clone
	rng *rand.Rand

	defaultVPC string
	vpcs       map[string]*VPC
	instances  map[string]*Instance
	enis       map[string]*ENI
	sgs        map[string]*SecurityGroup
	tgs        map[string]*tgEntry
	subnets    map[string]*Subnet
	lbs        map[string]*LoadBalancer
	listeners  map[string]*Listener
	rules      map[string]*ListenerRule
	r53        r53State // Route53 (r53zones.go)
	lts        map[string]*LaunchTemplate
	capErrs    map[capKey]string // injected launch failures (capacity.go)
	acmCerts   map[string]*ACMCertificate
	acmTokens  map[string]acmToken // RequestCertificate's idempotency tokens

	// Indexes (index.go), so that a call naming resources costs O(result), not O(account). Every write keeps
	// them in step; New and Clone build them with reindex.
	tgByName        map[string]string         // name → ARN (names are unique in an account)
	tgOrder         order[tgKey]              // DescribeTargetGroups' order
	eniByIP         map[string][]string       // private IP → IDs of the ENIs holding it
	eniByInstance   map[string][]string       // instance ID → IDs of the ENIs attached to it
	eniOrder        order[string]             // ENI IDs
	instOrder       order[string]             // instance IDs
	sgUsers         map[string]int            // security group ID → uses by ENIs and load balancers (DeleteSecurityGroup's check)
	lbByName        map[string]string         // name → ARN (names are unique in a region)
	lbOrder         order[tgKey]              // DescribeLoadBalancers' order: name, then ARN
	listenersByLB   map[string][]string       // load balancer ARN → its listener ARNs
	rulesByListener map[string][]string       // listener ARN → its rule ARNs, the default rule first
	tgLBs           map[string]map[string]int // target group ARN → load balancer ARN → actions forwarding to it
}

type targetKey struct {
	id   string
	port int32
}

type targetEntry struct {
	t              Target
	registeredAt   time.Time
	deregisteredAt *time.Time
}

type tgEntry struct {
	TargetGroup
	targets map[targetKey]*targetEntry
}

// New returns a Store with one default VPC (10.0.0.0/16), like a fresh account.
func New(cfg Config) *Store {
	src := rand.NewPCG(cfg.Seed, 0x5eed)
	s := &Store{
		cfg:       cfg,
		src:       src,
		rng:       rand.New(src),
		vpcs:      map[string]*VPC{},
		instances: map[string]*Instance{},
		enis:      map[string]*ENI{},
		sgs:       map[string]*SecurityGroup{},
		tgs:       map[string]*tgEntry{},
		subnets:   map[string]*Subnet{},
		lbs:       map[string]*LoadBalancer{},
		listeners: map[string]*Listener{},
		rules:     map[string]*ListenerRule{},
		r53:       newR53State(),
		lts:       map[string]*LaunchTemplate{},
		capErrs:   map[capKey]string{},
		acmCerts:  map[string]*ACMCertificate{},
		acmTokens: map[string]acmToken{},
	}
	id := s.newID("vpc-", 17)
	s.vpcs[id] = &VPC{ID: id, CIDRs: []string{"10.0.0.0/16"}, IsDefault: true}
	s.defaultVPC = id
	s.seedDefaultSubnets(id)
	s.reindex()
	sg := s.newSecurityGroup("default", "default VPC security group", id)
	// The default group allows all traffic from itself.
	sg.Ingress = append(sg.Ingress, Rule{ID: s.newID("sgr-", 17), Protocol: "-1", SourceGroupID: sg.ID})
	return s
}

// SetHealthTiming changes the health state machine's delays (scenario time). Zero leaves a value unchanged.
func (s *Store) SetHealthTiming(healthyAfter, deregistrationDelay time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if healthyAfter > 0 {
		s.cfg.HealthyAfter = healthyAfter
	}
	if deregistrationDelay > 0 {
		s.cfg.DeregistrationDelay = deregistrationDelay
	}
}

// AccountID returns the owning account.
func (s *Store) AccountID() string { return s.cfg.AccountID }

// Region returns the account's region.
func (s *Store) Region() string { return s.cfg.Region }

// DefaultVPCID returns the ID of the default VPC.
func (s *Store) DefaultVPCID() string { return s.defaultVPC }

func (s *Store) newID(prefix string, hexDigits int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, len(prefix)+hexDigits)
	b = append(b, prefix...)
	for range hexDigits {
		b = append(b, digits[s.rng.IntN(16)])
	}
	return string(b)
}

func notFound(code, kind, id string) error {
	return query.Errorf(code, "The %s '%s' does not exist", kind, id)
}

func cloneTags(t []Tag) []Tag { return slices.Clone(t) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lookup returns m's values for keys in order (a key given twice yields its value twice) and the index of the
// first missing key, or -1.
func lookup[V, R any](m map[string]*V, keys []string, clone func(*V) R) ([]R, int) {
	out := make([]R, 0, len(keys))
	for i, k := range keys {
		v, ok := m[k]
		if !ok {
			return nil, i
		}
		out = append(out, clone(v))
	}
	return out, -1
}

// inOrder clones m's values in the order of keys.
func inOrder[V, R any](m map[string]*V, keys []string, clone func(*V) R) []R {
	out := make([]R, 0, len(keys))
	for _, k := range keys {
		out = append(out, clone(m[k]))
	}
	return out
}

// mergeTags sets tags on an existing list (overwriting values of equal keys).
func mergeTags(have []Tag, add []Tag) []Tag {
	for _, t := range add {
		found := false
		for i := range have {
			if have[i].Key == t.Key {
				have[i].Value = t.Value
				found = true
				break
			}
		}
		if !found {
			have = append(have, t)
		}
	}
	return have
}

func (s *Store) tagLimit(n int) error {
	if s.cfg.MaxTags > 0 && n > s.cfg.MaxTags {
		return query.Errorf("TooManyTags", "The quota for the number of tags per resource (%d) has been exceeded", s.cfg.MaxTags)
	}
	return nil
}

func fmtInt(n int64) string { return fmt.Sprint(n) }

// NewID mints a resource ID: prefix and hexDigits hex digits from the store's generator.
func (s *Store) NewID(prefix string, hexDigits int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newID(prefix, hexDigits)
}
