// Package lbdeploy deploys an lbmodel.Stack to ELBv2 the way the AWS Load Balancer Controller does: it finds the
// stack's existing resources (by the model's names where it can, see scoped.go) and keeps only those carrying
// the stack's tags (elbv2.k8s.aws/cluster, <prefix>/stack, <prefix>/resource), then
// creates, modifies and deletes the load balancer, listeners, rules and target groups until AWS matches the
// model. A deploy of an unchanged stack makes only Describe calls (see rules.go for the one exception,
// authenticate-oidc client secrets, which AWS never describes).
package lbdeploy

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// Config configures a Deployer.
type Config struct {
	// ClusterName is the value of the elbv2.k8s.aws/cluster tag: only resources carrying it are ever touched.
	ClusterName string
	// VpcID is the VPC target groups are created in and subnets are discovered in.
	VpcID string
	ELB   ELBV2API
	EC2   EC2API
	// Logger receives one line per mutation (V(1)); default logr.Discard().
	Logger logr.Logger
}

// Deployer makes AWS match stacks.
type Deployer struct {
	cfg Config
	log logr.Logger
}

// New checks cfg and returns a Deployer.
func New(cfg Config) (*Deployer, error) {
	if cfg.ClusterName == "" || cfg.VpcID == "" || cfg.ELB == nil || cfg.EC2 == nil {
		return nil, errors.New("lbdeploy: ClusterName, VpcID, ELB and EC2 are required")
	}
	log := cfg.Logger
	if log.GetSink() == nil {
		log = logr.Discard()
	}
	return &Deployer{cfg: cfg, log: log}, nil
}

// Result is what the Kubernetes side needs after a deploy.
type Result struct {
	LoadBalancerARN string
	// DNSName is the load balancer's DNS name, for the Ingress's or Service's status.
	DNSName string
	// TargetGroupARNs maps each target group's model ID to its ARN, for the TargetGroupBindings.
	TargetGroupARNs map[string]string
}

// Deploy makes AWS match stack and returns the ARNs and DNS name. It is idempotent: a second Deploy of the same
// stack finds everything in place and changes nothing.
func (d *Deployer) Deploy(ctx context.Context, stack lbmodel.Stack) (Result, error) {
	if got := stack.LoadBalancer.Tags[lbmodel.TagCluster]; got != d.cfg.ClusterName {
		return Result{}, fmt.Errorf("stack %s is for cluster %q, this deployer for %q", stack.ID.Name, got, d.cfg.ClusterName)
	}
	log := d.log.WithValues("stack", stack.ID.Name, "kind", stack.ID.Kind)
	found, err := d.discoverStack(ctx, log, stack)
	if err != nil {
		return Result{}, err
	}
	tgARNs, stale, err := d.syncTargetGroups(ctx, log, stack, found)
	if err != nil {
		return Result{}, err
	}
	lb, err := d.syncLoadBalancer(ctx, log, stack, found)
	if err != nil {
		return Result{}, err
	}
	if err := d.syncListeners(ctx, log, stack, lb.arn, tgARNs); err != nil {
		return Result{}, err
	}
	// Only now is no listener or rule of the stack pointing at a replaced or removed target group.
	for _, arn := range stale {
		if err := d.deleteTargetGroup(ctx, log, arn); err != nil {
			return Result{}, err
		}
	}
	return Result{LoadBalancerARN: lb.arn, DNSName: lb.dnsName, TargetGroupARNs: tgARNs}, nil
}

// Delete removes every resource of the stack: the load balancers (their listeners and rules go with them),
// then the target groups. Deleting a stack that has nothing left is not an error.
func (d *Deployer) Delete(ctx context.Context, id lbmodel.StackID) error {
	log := d.log.WithValues("stack", id.Name, "kind", id.Kind)
	found, err := d.discover(ctx, id)
	if err != nil {
		return err
	}
	for _, lb := range found.loadBalancers {
		if err := d.deleteLoadBalancer(ctx, log, lb.arn); err != nil {
			return err
		}
	}
	for _, tg := range found.targetGroups {
		if err := d.deleteTargetGroup(ctx, log, tg.arn); err != nil {
			return err
		}
	}
	return nil
}
