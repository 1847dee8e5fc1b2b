package state

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

func forwardAction(tg string) []Action {
	return []Action{{Type: ActionForward, Order: 1, TargetGroupARN: tg}}
}

// lbWorkload runs random load balancer, listener and rule writes and returns how many succeeded.
func lbWorkload(t *testing.T, s *Store, rng *rand.Rand, steps int, check func()) int {
	t.Helper()
	var subnets []SubnetMapping
	for _, sn := range s.Subnets() {
		subnets = append(subnets, SubnetMapping{SubnetID: sn.ID})
	}
	sg, err := s.CreateSecurityGroup("lb", "d", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var tgs []string
	for i := range 40 {
		tgs = append(tgs, createTG(t, s, fmt.Sprintf("tg-%d", i), 80).ARN)
	}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	ok := 0
	for step := range steps {
		if step%50 == 0 {
			check()
		}
		lbs := s.LoadBalancers()
		var listeners, rules []string
		for _, lb := range lbs {
			ls, _ := s.ListenersOf(lb.ARN)
			for _, l := range ls {
				listeners = append(listeners, l.ARN)
				rs, _ := s.RulesOf(l.ARN)
				for _, r := range rs {
					rules = append(rules, r.ARN)
				}
			}
		}
		var err error
		switch op := rng.IntN(16); {
		case op < 2 || len(lbs) == 0:
			lb := LoadBalancer{Name: fmt.Sprintf("lb-%d", rng.IntN(6)), Type: LBTypeApplication, Scheme: SchemeInternetFacing, Subnets: slices.Clone(subnets)}
			if rng.IntN(2) == 0 {
				lb.SecurityGroupIDs = []string{sg.ID}
			}
			_, err = s.CreateLoadBalancer(lb, now)
		case op == 2:
			err = s.DeleteLoadBalancer(lbs[rng.IntN(len(lbs))].ARN)
		case op < 5 || len(listeners) == 0:
			_, err = s.CreateListener(Listener{LoadBalancerARN: lbs[rng.IntN(len(lbs))].ARN, Protocol: "HTTP", Port: int32(80 + rng.IntN(4)), DefaultActions: forwardAction(pick(tgs))})
		case op == 5:
			_, err = s.ModifyListener(pick(listeners), func(l *Listener) error { l.DefaultActions = forwardAction(pick(tgs)); return nil })
		case op == 6:
			err = s.DeleteListener(pick(listeners))
		case op < 11:
			_, err = s.CreateRule(ListenerRule{ListenerARN: pick(listeners), Priority: int32(1 + rng.IntN(10)),
				Conditions: []Condition{{Field: "host-header", Values: []string{"a"}}}, Actions: forwardAction(pick(tgs))})
		case op < 13:
			_, err = s.ModifyRule(pick(rules), nil, forwardAction(pick(tgs)))
		case op == 13:
			err = s.DeleteRule(pick(rules))
		default:
			_, err = s.SetRulePriorities([]RulePriority{{RuleARN: pick(rules), Priority: int32(1 + rng.IntN(10))}})
		}
		if err == nil {
			ok++
		} else if code(err) == fmt.Sprint(err) {
			t.Fatalf("not an AWS error: %v", err)
		}
	}
	return ok
}

// After random load balancer writes, the incrementally kept indexes equal ones rebuilt from the data, and a
// target group's load balancers are exactly those whose actions forward to it.
func TestLoadBalancerIndexesMatchRebuild(t *testing.T) {
	s := newStore()
	ok := lbWorkload(t, s, rand.New(rand.NewPCG(3, 4)), 1500, func() { checkLBIndexes(t, s) })
	t.Logf("%d of 1500 writes succeeded; %d load balancers, %d listeners, %d rules", ok, len(s.lbs), len(s.listeners), len(s.rules))
	if ok < 500 {
		t.Fatalf("only %d of 1500 writes succeeded: the workload tests little", ok)
	}
	checkLBIndexes(t, s)
	c, err := s.Clone(s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkLBIndexes(t, c)
	if !slices.Equal(names(c.TargetGroups()), names(s.TargetGroups())) || len(c.LoadBalancers()) != len(s.LoadBalancers()) {
		t.Fatal("clone differs")
	}
}

func checkLBIndexes(t *testing.T, s *Store) {
	t.Helper()
	r := &Store{tgs: s.tgs, enis: s.enis, instances: s.instances, lbs: s.lbs, listeners: s.listeners, rules: s.rules}
	r.reindex()
	if !maps.Equal(s.lbByName, r.lbByName) {
		t.Errorf("lbByName %v, rebuilt %v", s.lbByName, r.lbByName)
	}
	if !maps.Equal(s.sgUsers, r.sgUsers) {
		t.Errorf("sgUsers %v, rebuilt %v", s.sgUsers, r.sgUsers)
	}
	sameSet := func(a, b []string) bool { return slices.Equal(sorted(a), sorted(b)) }
	if !maps.EqualFunc(s.listenersByLB, r.listenersByLB, sameSet) {
		t.Errorf("listenersByLB %v, rebuilt %v", s.listenersByLB, r.listenersByLB)
	}
	if !maps.EqualFunc(s.rulesByListener, r.rulesByListener, sameSet) {
		t.Errorf("rulesByListener %v, rebuilt %v", s.rulesByListener, r.rulesByListener)
	}
	for l, rs := range s.rulesByListener {
		if len(rs) == 0 || !s.rules[rs[0]].IsDefault {
			t.Errorf("listener %s: rules %v do not start with the default rule", l, rs)
		}
	}
	if !maps.EqualFunc(s.tgLBs, r.tgLBs, maps.Equal) {
		t.Errorf("tgLBs %v, rebuilt %v", s.tgLBs, r.tgLBs)
	}
	for arn, lbs := range s.tgLBs {
		if len(lbs) != 1 {
			t.Errorf("target group %s serves %d load balancers", arn, len(lbs))
		}
	}
}
