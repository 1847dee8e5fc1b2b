package fakeaws

import (
	"errors"
	"fmt"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/ec2"
	"github.com/restartsim/restartsim/fakeaws/internal/faults"
	"github.com/restartsim/restartsim/fakeaws/internal/throttle"
)

// AllOperations is the operation key that applies latency or error injection to every operation without a
// setting of its own.
const AllOperations = faults.All

// SetProfile switches the throttle profile; every bucket restarts full.
func (s *Server) SetProfile(name string) error { return s.throttle.SetProfile(name) }

// Profile returns the current throttle profile.
func (s *Server) Profile() string { return s.throttle.Profile() }

// SetLimit gives an operation (its own bucket) or a category (e.g. CategoryELBDescribe) a bucket of rate tokens
// per scenario second and burst capacity; rate < 0 is unlimited. Affected buckets restart full.
func (s *Server) SetLimit(operation string, rate float64, burst int) {
	s.throttle.SetLimit(operation, throttle.Limit{Rate: rate, Burst: burst})
}

// ClearLimit removes a SetLimit/Options.Overrides entry, falling back to the profile.
func (s *Server) ClearLimit(operation string) { s.throttle.ClearLimit(operation) }

// Buckets returns the fill of every live token bucket now.
func (s *Server) Buckets() []BucketState { return s.throttle.Buckets(s.clock.Now()) }

// SetLatency sets the injected latency (scenario time) of an operation, or of AllOperations: base plus uniform
// seeded jitter in [0, jitter). Zero base and jitter remove the setting.
func (s *Server) SetLatency(operation string, base, jitter time.Duration) {
	s.faults.SetLatency(operation, faults.Latency{Base: base, Jitter: jitter})
}

// SetErrorRate makes a fraction rate (0..1) of an operation's calls (or AllOperations') fail with code, e.g.
// "InternalFailure" (500) or "ServiceUnavailable" (503); the HTTP status follows the code. Rate 0 removes it.
func (s *Server) SetErrorRate(operation string, rate float64, code string) {
	if code == "" {
		code = "InternalFailure"
	}
	s.faults.SetErrorRate(operation, faults.ErrorRate{Rate: rate, Code: code})
}

// AddOutage makes every call to services (all when none given: "elbv2", "ec2", "sts", "route53") fail with
// 503 during [start, start+d) of scenario time.
func (s *Server) AddOutage(start time.Time, d time.Duration, services ...string) {
	s.faults.AddOutage(faults.Outage{Start: start, End: start.Add(d), Services: services})
}

// ClearOutages removes every outage window.
func (s *Server) ClearOutages() { s.faults.ClearOutages() }

// SetHealthTiming changes HealthyAfter and DeregistrationDelay (zero keeps a value).
func (s *Server) SetHealthTiming(healthyAfter, deregistrationDelay time.Duration) {
	s.st.SetHealthTiming(healthyAfter, deregistrationDelay)
}

// SeedVPC adds a VPC (ID generated when empty). A fresh server already has a default VPC 10.0.0.0/16.
func (s *Server) SeedVPC(v VPC) (VPC, error) { return s.st.SeedVPC(v) }

// SeedInstance adds a running instance (VPCID defaults to the default VPC) and its primary ENI.
func (s *Server) SeedInstance(in Instance) (Instance, error) { return s.st.SeedInstance(in) }

// CertificateSeed is an ACM certificate to seed: its domain and, optionally, its ARN (an ACM certificate ARN
// of the server's account and region; generated when empty).
type CertificateSeed struct {
	Domain string `json:"domain"`
	ARN    string `json:"arn,omitempty"`
}

// SeedCertificate adds an ACM certificate, issued now (no PEMs: listeners only need it to exist), and
// returns it with its ARN. Seeding an ARN that exists for the same domain changes nothing.
func (s *Server) SeedCertificate(c CertificateSeed) (CertificateSeed, error) {
	if c.Domain == "" {
		return c, errors.New("fakeaws: a seeded certificate needs a domain")
	}
	arn, err := s.st.SeedCertificate(s.clock.Now(), c.ARN, c.Domain)
	c.ARN = arn
	return c, err
}

// ACMCertificate is a certificate of the account's ACM as the harness reads it: ARN, domain and status now.
type ACMCertificate struct {
	ARN    string `json:"arn"`
	Domain string `json:"domain"`
	Status string `json:"status"`
}

// Certificates lists the account's ACM certificates, ordered by ARN.
func (s *Server) Certificates() []ACMCertificate {
	now := s.clock.Now()
	var out []ACMCertificate
	for _, c := range s.st.ACMCertificates() {
		out = append(out, ACMCertificate{ARN: c.ARN, Domain: c.DomainName, Status: c.Status(now)})
	}
	return out
}

// SeedENI adds a network interface (ID generated when empty).
func (s *Server) SeedENI(e ENI) (ENI, error) { return s.st.SeedENI(e) }

// CreateSecurityGroup creates a security group (vpcID "" → default VPC), as the EC2 API would.
func (s *Server) CreateSecurityGroup(name, description, vpcID string, tags ...Tag) (SecurityGroup, error) {
	return s.st.CreateSecurityGroup(name, description, vpcID, tags)
}

// DefaultVPCID returns the default VPC's ID.
func (s *Server) DefaultVPCID() string { return s.st.DefaultVPCID() }

// VPCs returns every VPC.
func (s *Server) VPCs() []VPC { return s.st.VPCs() }

// Instances returns every instance, its state advanced to the scenario time now (pending → running,
// shutting-down → terminated; a terminated instance an hour old is gone).
func (s *Server) Instances() []Instance {
	s.st.Settle(s.clock.Now())
	return s.st.Instances()
}

// CapacityError makes EC2 launches of an instance type in a zone (empty: every zone) fail with Code
// (default InsufficientInstanceCapacity): CreateFleet lists the error for those overrides and launches
// from the others, RunInstances answers it. Clear removes the injection.
type CapacityError struct {
	InstanceType string `json:"instanceType"`
	Zone         string `json:"zone,omitempty"`
	Code         string `json:"code,omitempty"`
	Clear        bool   `json:"clear,omitempty"`
}

// SetCapacityError applies a CapacityError.
func (s *Server) SetCapacityError(c CapacityError) (CapacityError, error) {
	if _, ok := LookupInstanceType(c.InstanceType); !ok {
		return c, fmt.Errorf("fakeaws: capacity error: unknown instance type %q", c.InstanceType)
	}
	if c.Code == "" && !c.Clear {
		c.Code = "InsufficientInstanceCapacity"
	}
	code := c.Code
	if c.Clear {
		code = ""
	}
	s.st.SetCapacityError(c.InstanceType, c.Zone, code)
	return c, nil
}

// ENIs returns every network interface.
func (s *Server) ENIs() []ENI { return s.st.ENIs() }

// TargetGroups returns every target group, sorted by name.
func (s *Server) TargetGroups() []TargetGroup { return s.st.TargetGroups() }

// Targets returns the targets of a group with their health now (scenario time); gone targets are absent.
func (s *Server) Targets(tgARN string) ([]TargetHealth, error) {
	return s.st.TargetHealth(tgARN, nil, s.clock.Now())
}

// SecurityGroup returns one security group with its rules.
func (s *Server) SecurityGroup(id string) (SecurityGroup, error) {
	return s.st.FindSecurityGroup(id, "")
}

// SeedSubnet adds (or replaces) a subnet (an empty VPCID means the default VPC).
func (s *Server) SeedSubnet(sn Subnet) (Subnet, error) { return s.st.SeedSubnet(sn) }

// Subnets returns all subnets sorted by ID.
func (s *Server) Subnets() []Subnet { return s.st.Subnets() }

// LoadBalancers returns all load balancers in name order.
func (s *Server) LoadBalancers() []LoadBalancer { return s.st.LoadBalancers() }

// Listeners returns a load balancer's listeners by port.
func (s *Server) Listeners(lbARN string) ([]Listener, error) { return s.st.ListenersOf(lbARN) }

// Rules returns a listener's rules by priority, the default rule last.
func (s *Server) Rules(listenerARN string) ([]ListenerRule, error) { return s.st.RulesOf(listenerARN) }

// loadBalancerState is a load balancer with its listeners and their rules, as the admin state dump shows it.
type loadBalancerState struct {
	LoadBalancer
	Listeners []listenerState `json:"listeners"`
}

type listenerState struct {
	Listener
	Rules []ListenerRule `json:"rules"`
}

func (s *Server) loadBalancerTree() []loadBalancerState {
	lbs := s.LoadBalancers()
	out := make([]loadBalancerState, 0, len(lbs))
	for _, lb := range lbs {
		ls, _ := s.Listeners(lb.ARN) // a load balancer deleted meanwhile shows without listeners
		st := loadBalancerState{LoadBalancer: lb, Listeners: make([]listenerState, 0, len(ls))}
		for _, l := range ls {
			rules, _ := s.Rules(l.ARN)
			st.Listeners = append(st.Listeners, listenerState{Listener: l, Rules: rules})
		}
		out = append(out, st)
	}
	return out
}

// SecurityGroups returns every security group.
func (s *Server) SecurityGroups() []SecurityGroup { return s.st.SecurityGroups() }

func (s *Server) recordAdmin(op string, c Call, err error) {
	c.Time, c.Service, c.Operation, c.Outcome, c.RequestID = s.clock.Now(), ServiceAdmin, op, OutcomeOK, s.newRequestID()
	if err != nil {
		c.Outcome, c.ErrorCode = OutcomeError, err.Error()
	}
	s.rec.record(c)
}

// RemoveTarget deletes a target from a group immediately, out of band (drift: no draining). It is recorded with
// Service "admin".
func (s *Server) RemoveTarget(tgARN string, t Target) error {
	err := s.st.RemoveTarget(tgARN, t)
	s.recordAdmin("RemoveTarget", Call{TargetGroupARN: tgARN, Targets: []Target{t}}, err)
	return err
}

// RevokeIngress removes one ingress rule out of band (drift), matched by content (or by rule.ID when set). It is
// recorded with Service "admin".
func (s *Server) RevokeIngress(sgID string, rule Rule) error {
	rule.Protocol = ec2.NormalizeProtocol(rule.Protocol)
	var ids []string
	var rules []Rule
	if rule.ID != "" {
		ids = []string{rule.ID}
	} else {
		rules = []Rule{rule}
	}
	_, err := s.st.RevokeIngress(sgID, "", rules, ids)
	s.recordAdmin("RevokeIngress", Call{SecurityGroupID: sgID}, err)
	return err
}
