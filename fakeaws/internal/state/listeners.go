package state

import (
	"reflect"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

var listenerProtocols = map[string][]string{
	LBTypeApplication: {"HTTP", "HTTPS"},
	LBTypeNetwork:     {"TCP", "TLS", "UDP", "TCP_UDP"},
}

// CreateListener adds a listener (Protocol, Port, SSLPolicy, Certificates, AlpnPolicy, DefaultActions and
// Tags of l, validated for syntax) to its load balancer, with its default rule.
func (s *Store) CreateListener(l Listener) (Listener, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lb, err := s.lb(l.LoadBalancerARN)
	if err != nil {
		return Listener{}, err
	}
	if same := s.sameListener(&l); same != nil {
		return cloneListener(same), nil
	}
	if err := s.checkListener(lb, &l, ""); err != nil {
		return Listener{}, err
	}
	if s.cfg.MaxListenersPerLB > 0 && len(s.listenersByLB[lb.ARN]) >= s.cfg.MaxListenersPerLB {
		return Listener{}, query.Errorf("TooManyListeners", "You've reached the limit on the number of listeners per load balancer")
	}
	if err := s.tagLimit(len(l.Tags)); err != nil {
		return Listener{}, err
	}
	for _, a := range l.DefaultActions {
		if a.OIDC != nil && a.OIDC.ClientSecret == "" {
			return Listener{}, query.Errorf("ValidationError", "A client secret must be specified for an authenticate-oidc action")
		}
	}
	tail := strings.SplitN(strings.TrimPrefix(lb.ARN, s.arnPrefix()+"loadbalancer/"), "/", 3) // kind, name, id
	l.ARN = s.arnPrefix() + "listener/" + strings.Join(tail, "/") + "/" + s.newID("", 16)
	l.DefaultRuleARN = strings.Replace(l.ARN, ":listener/", ":listener-rule/", 1) + "/" + s.newID("", 16)
	l.Attributes = nil
	c := cloneListener(&l)
	s.listeners[l.ARN] = &c
	s.rules[l.DefaultRuleARN] = &ListenerRule{ARN: l.DefaultRuleARN, ListenerARN: l.ARN, IsDefault: true}
	s.listenersByLB[lb.ARN] = append(s.listenersByLB[lb.ARN], l.ARN)
	s.rulesByListener[l.ARN] = []string{l.DefaultRuleARN}
	s.indexActions(lb.ARN, c.DefaultActions, 1)
	return cloneListener(&c), nil
}

// sameListener is the load balancer's listener on l's port if its settings are l's: creating a listener
// again with identical settings succeeds and returns the existing one, as AWS does.
func (s *Store) sameListener(l *Listener) *Listener {
	for _, arn := range s.listenersByLB[l.LoadBalancerARN] {
		o := s.listeners[arn]
		if o.Port != l.Port {
			continue
		}
		if o.Protocol == l.Protocol && o.SSLPolicy == l.SSLPolicy && o.MutualAuthMode == l.MutualAuthMode &&
			slices.Equal(o.Certificates, l.Certificates) && slices.Equal(o.AlpnPolicy, l.AlpnPolicy) &&
			reflect.DeepEqual(o.DefaultActions, l.DefaultActions) {
			return o
		}
		return nil
	}
	return nil
}

// checkListener checks protocol, port and default actions against the load balancer; self is the listener's
// own ARN when it is being modified.
func (s *Store) checkListener(lb *LoadBalancer, l *Listener, self string) error {
	if ok := listenerProtocols[lb.Type]; !slices.Contains(ok, l.Protocol) {
		return query.Errorf("ValidationError", "Listener protocol '%s' must be one of '%s'", l.Protocol, strings.Join(ok, ", "))
	}
	if (l.Protocol == "HTTPS" || l.Protocol == "TLS") && len(l.Certificates) == 0 {
		return query.Errorf("ValidationError", "A certificate must be specified for %s listeners", l.Protocol)
	}
	for _, other := range s.listenersByLB[lb.ARN] {
		if other != self && s.listeners[other].Port == l.Port {
			return query.Errorf("DuplicateListener", "A listener already exists on this port for this load balancer '%s'", lb.ARN)
		}
	}
	return s.checkActions(lb, l.Protocol, l.DefaultActions)
}

// checkActions checks what only the account knows about actions: the target groups exist, suit the load
// balancer and are not used by another one; authentication runs on HTTPS only.
func (s *Store) checkActions(lb *LoadBalancer, protocol string, as []Action) error {
	for _, a := range as {
		switch {
		case lb.Type == LBTypeNetwork && a.Type != ActionForward:
			return query.Errorf("InvalidLoadBalancerAction", "Action type '%s' is not supported by network load balancers", a.Type)
		case a.Type == ActionAuthenticateOIDC && protocol != "HTTPS":
			return query.Errorf("InvalidLoadBalancerAction", "Authenticate actions are only supported on HTTPS listeners")
		}
	}
	for _, arn := range actionTargetGroups(as) {
		tg, ok := s.tgs[arn]
		if !ok {
			return query.Errorf("TargetGroupNotFound", "Target groups '%s' not found", arn)
		}
		appTG := tg.TargetType == "lambda" || tg.Protocol == "HTTP" || tg.Protocol == "HTTPS"
		if appTG != (lb.Type == LBTypeApplication) {
			return query.Errorf("IncompatibleProtocols", "The target group '%s' uses protocol '%s', which a %s load balancer cannot forward to", arn, tg.Protocol, lb.Type)
		}
		if tg.VPCID != "" && tg.VPCID != lb.VPCID {
			return query.Errorf("ValidationError", "The target group '%s' is in VPC '%s', not the load balancer's VPC '%s'", arn, tg.VPCID, lb.VPCID)
		}
		for other := range s.tgLBs[arn] {
			if other != lb.ARN {
				return query.Errorf("TargetGroupAssociationLimit", "The following target groups cannot be associated with more than one load balancer: %s", arn)
			}
		}
	}
	return nil
}

// keepSecrets fills the client secret of each authenticate-oidc action that asks to keep the existing one,
// from the first such action in old.
func keepSecrets(as, old []Action) error {
	for i := range as {
		o := as[i].OIDC
		if o == nil || !o.UseExistingClientSecret {
			continue
		}
		i := slices.IndexFunc(old, func(a Action) bool { return a.OIDC != nil })
		if i < 0 {
			return query.Errorf("InvalidLoadBalancerAction", "There is no existing client secret to use")
		}
		o.ClientSecret, o.UseExistingClientSecret = old[i].OIDC.ClientSecret, false
	}
	for _, a := range as {
		if a.OIDC != nil && a.OIDC.ClientSecret == "" {
			return query.Errorf("ValidationError", "A client secret must be specified for an authenticate-oidc action")
		}
	}
	return nil
}

func (s *Store) listener(arn string) (*Listener, error) {
	if l, ok := s.listeners[arn]; ok {
		return l, nil
	}
	return nil, query.Errorf("ListenerNotFound", "Listener '%s' not found", arn)
}

// ModifyListener applies fn to a copy of the listener, checks the result like CreateListener and stores it.
func (s *Store) ModifyListener(arn string, fn func(*Listener) error) (Listener, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.listener(arn)
	if err != nil {
		return Listener{}, err
	}
	c := cloneListener(l)
	if err := fn(&c); err != nil {
		return Listener{}, err
	}
	if err := keepSecrets(c.DefaultActions, l.DefaultActions); err != nil {
		return Listener{}, err
	}
	lb := s.lbs[l.LoadBalancerARN]
	s.indexActions(lb.ARN, l.DefaultActions, -1) // a group this listener alone uses may be kept
	err = s.checkListener(lb, &c, arn)
	if err != nil {
		s.indexActions(lb.ARN, l.DefaultActions, 1)
		return Listener{}, err
	}
	s.indexActions(lb.ARN, c.DefaultActions, 1)
	*l = c
	return cloneListener(l), nil
}

// DeleteListener deletes a listener and its rules.
func (s *Store) DeleteListener(arn string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.listener(arn)
	if err != nil {
		return err
	}
	s.deleteListener(arn)
	if rest := slices.DeleteFunc(s.listenersByLB[l.LoadBalancerARN], func(a string) bool { return a == arn }); len(rest) > 0 {
		s.listenersByLB[l.LoadBalancerARN] = rest
	} else {
		delete(s.listenersByLB, l.LoadBalancerARN)
	}
	return nil
}

// deleteListener removes a listener and its rules but not its entry in listenersByLB.
func (s *Store) deleteListener(arn string) {
	l := s.listeners[arn]
	for _, r := range s.rulesByListener[arn] {
		s.indexActions(l.LoadBalancerARN, s.rules[r].Actions, -1)
		delete(s.rules, r)
	}
	s.indexActions(l.LoadBalancerARN, l.DefaultActions, -1)
	delete(s.rulesByListener, arn)
	delete(s.listeners, arn)
}

// ListenersOf returns a load balancer's listeners by port.
func (s *Store) ListenersOf(lbARN string) ([]Listener, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.lb(lbARN); err != nil {
		return nil, err
	}
	out := inOrder(s.listeners, s.listenersByLB[lbARN], cloneListener)
	slices.SortFunc(out, func(a, b Listener) int { return int(a.Port) - int(b.Port) })
	return out, nil
}

// ListenersByARN returns the listeners of arns in order and -1, or nil and the first missing index.
func (s *Store) ListenersByARN(arns []string) ([]Listener, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return lookup(s.listeners, arns, cloneListener)
}

// SetListenerAttributes records attribute values (validated by the caller) and returns the listener.
func (s *Store) SetListenerAttributes(arn string, attrs map[string]string) (Listener, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.listener(arn)
	if err != nil {
		return Listener{}, err
	}
	l.Attributes = setAttributes(l.Attributes, attrs)
	return cloneListener(l), nil
}

// ListenerLoadBalancer returns the load balancer a listener belongs to.
func (s *Store) ListenerLoadBalancer(arn string) (LoadBalancer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.listener(arn)
	if err != nil {
		return LoadBalancer{}, err
	}
	return cloneLB(s.lbs[l.LoadBalancerARN]), nil
}
