package networking

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/controller/internal/awsclient"
)

// EC2 is the part of awsclient.EC2 the manager uses.
type EC2 interface {
	PodSecurityGroups(ctx context.Context, ips []string) (map[string][]string, error)
	InstanceSecurityGroups(ctx context.Context, ids []string) (map[string][]string, error)
	SecurityGroups(ctx context.Context, ids []string) (map[string]awsclient.SecurityGroup, error)
	FreshSecurityGroups(ctx context.Context, ids []string, maxAge time.Duration) (map[string]awsclient.SecurityGroup, error)
	Authorize(ctx context.Context, sgID string, perms []ec2types.IpPermission) error
	Revoke(ctx context.Context, sgID string, perms []ec2types.IpPermission) error
}

// ErrNoTargetSecurityGroup means a target's ENI has several security groups and none (or more than
// one) carries the cluster tag.
var ErrNoTargetSecurityGroup = errors.New("cannot pick the target's security group")

// ErrBindingsUnknown, from NetworkingTGBs, means the set of bindings with rules is not known yet
// (the controller's caches have not synced): rules may be added, none revoked.
var ErrBindingsUnknown = errors.New("the bindings with networking rules are not known yet")

// Options configures a Manager.
type Options struct {
	EC2 EC2
	// ClusterName picks among several ENI security groups: the one tagged kubernetes.io/cluster/<ClusterName>.
	ClusterName string
	// NetworkingTGBs lists the keys of every live TargetGroupBinding with networking rules.
	NetworkingTGBs func(ctx context.Context) ([]string, error)
}

// Manager aggregates rules across TargetGroupBindings. One per controller instance.
type Manager struct {
	opts    Options
	mu      sync.Mutex
	desired map[string]map[string][]Rule // TGB key → SG → rules
}

// NewManager creates a Manager.
func NewManager(opts Options) *Manager {
	return &Manager{opts: opts, desired: map[string]map[string][]Rule{}}
}

// Request is one TargetGroupBinding's networking wish.
type Request struct {
	TGB string
	// IPs (pod IPs, IP targets) or InstanceIDs (instance targets) whose security groups get the rules.
	IPs         []string
	InstanceIDs []string
	Rules       []Rule
	// BeforeMutate runs once before the first Authorize or Revoke (the caller resets its checkpoint).
	BeforeMutate func(ctx context.Context) error
	// AddOnly: the caller cannot know every binding's rules yet (the resume fast path, before the
	// caches have synced), so rules may be added but none revoked, as with ErrBindingsUnknown.
	AddOnly bool
}

// Reconcile records the request's rules and applies the aggregated differences of the security
// groups it touches.
func (m *Manager) Reconcile(ctx context.Context, req Request) error {
	want := map[string][]Rule{}
	if len(req.Rules) > 0 {
		sgs, err := m.targetSecurityGroups(ctx, req)
		if err != nil {
			return err
		}
		for _, sg := range sgs {
			want[sg] = req.Rules
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	affected := keys(m.desired[req.TGB], want)
	if len(want) == 0 {
		delete(m.desired, req.TGB)
	} else {
		m.desired[req.TGB] = want
	}
	return m.apply(ctx, affected, req)
}

// Missing reports the target security groups that lack some of the request's rules (the drift
// check: an owned rule revoked out of band). Groups are read no older than maxAge; nothing is
// mutated and the aggregate is not touched.
func (m *Manager) Missing(ctx context.Context, req Request, maxAge time.Duration) ([]string, error) {
	if len(req.Rules) == 0 {
		return nil, nil
	}
	sgs, err := m.targetSecurityGroups(ctx, req)
	if err != nil || len(sgs) == 0 {
		return nil, err
	}
	groups, err := m.opts.EC2.FreshSecurityGroups(ctx, sgs, maxAge)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, sg := range sgs {
		if add, _ := diff(req.Rules, OwnedRules(groups[sg].Ingress)); len(add) > 0 {
			out = append(out, sg)
		}
	}
	return out, nil
}

// Remove forgets the TargetGroupBinding req.TGB and revokes the rules only it wanted (its other
// fields but BeforeMutate and AddOnly are not read).
func (m *Manager) Remove(ctx context.Context, req Request) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	affected := keys(m.desired[req.TGB], nil)
	delete(m.desired, req.TGB)
	return m.apply(ctx, affected, req)
}

// apply reconciles the given groups against the aggregate, with req's BeforeMutate and AddOnly;
// m.mu is held.
func (m *Manager) apply(ctx context.Context, sgs []string, req Request) error {
	if len(sgs) == 0 {
		return nil
	}
	synced := false
	if !req.AddOnly {
		var err error
		if synced, err = m.allSynced(ctx); err != nil {
			return err
		}
	}
	beforeMutate := req.BeforeMutate
	groups, err := m.opts.EC2.SecurityGroups(ctx, sgs)
	if err != nil {
		return err
	}
	mutated := false
	before := func() error {
		if mutated || beforeMutate == nil {
			mutated = true
			return nil
		}
		mutated = true
		return beforeMutate(ctx)
	}
	for _, sg := range sgs {
		add, remove := diff(m.aggregate(sg), OwnedRules(groups[sg].Ingress))
		if !synced {
			remove = nil
		}
		if len(add) == 0 && len(remove) == 0 {
			continue
		}
		if err := before(); err != nil {
			return err
		}
		if len(add) > 0 {
			if err := m.opts.EC2.Authorize(ctx, sg, Permissions(add)); err != nil {
				return err
			}
		}
		if len(remove) > 0 {
			if err := m.opts.EC2.Revoke(ctx, sg, Permissions(remove)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (m *Manager) aggregate(sg string) []Rule {
	all := map[string]Rule{}
	for _, perSG := range m.desired {
		for _, r := range perSG[sg] {
			all[r.Key()] = r
		}
	}
	return sortedRules(all)
}

func (m *Manager) allSynced(ctx context.Context) (bool, error) {
	if m.opts.NetworkingTGBs == nil {
		return true, nil
	}
	live, err := m.opts.NetworkingTGBs(ctx)
	if errors.Is(err, ErrBindingsUnknown) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("listing TargetGroupBindings with networking: %w", err)
	}
	for _, k := range live {
		if _, ok := m.desired[k]; !ok {
			return false, nil
		}
	}
	return true, nil
}

func (m *Manager) targetSecurityGroups(ctx context.Context, req Request) ([]string, error) {
	var byTarget map[string][]string
	var err error
	if len(req.InstanceIDs) > 0 {
		byTarget, err = m.opts.EC2.InstanceSecurityGroups(ctx, req.InstanceIDs)
	} else if len(req.IPs) > 0 {
		byTarget, err = m.opts.EC2.PodSecurityGroups(ctx, req.IPs)
	}
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	var ambiguous []string
	for _, groups := range byTarget {
		switch len(groups) {
		case 0:
		case 1:
			set[groups[0]] = true
		default:
			ambiguous = append(ambiguous, groups...)
		}
	}
	if len(ambiguous) > 0 {
		described, err := m.opts.EC2.SecurityGroups(ctx, dedupe(ambiguous))
		if err != nil {
			return nil, err
		}
		for _, groups := range byTarget {
			if len(groups) < 2 {
				continue
			}
			var tagged []string
			for _, g := range groups {
				if _, ok := described[g].Tags["kubernetes.io/cluster/"+m.opts.ClusterName]; ok {
					tagged = append(tagged, g)
				}
			}
			if len(tagged) != 1 {
				return nil, fmt.Errorf("%w: %v has %d groups tagged kubernetes.io/cluster/%s", ErrNoTargetSecurityGroup, groups, len(tagged), m.opts.ClusterName)
			}
			set[tagged[0]] = true
		}
	}
	out := make([]string, 0, len(set))
	for g := range set {
		out = append(out, g)
	}
	sort.Strings(out)
	return out, nil
}

func keys(a, b map[string][]Rule) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func dedupe(s []string) []string {
	set := map[string]bool{}
	var out []string
	for _, v := range s {
		if !set[v] {
			set[v] = true
			out = append(out, v)
		}
	}
	return out
}
