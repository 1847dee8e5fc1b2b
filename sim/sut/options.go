package sut

import (
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/sim/scenario"
)

func (p *inProcess) scaled(d *scenario.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return p.clock.Wall(d.Duration)
}

// duration is a strategy's duration as the controller runs it: unset, the controller's default
// fallback in scenario time (0, the controller-runtime lease timings, stays 0: wall time); 0, off
// (negative) where off exists and 0 elsewhere; at least a millisecond otherwise.
func (p *inProcess) duration(d *scenario.Duration, fallback time.Duration, off bool) time.Duration {
	switch {
	case d == nil:
		return p.clock.Wall(fallback)
	case d.Duration == 0 && off:
		return -1
	case d.Duration == 0:
		return 0
	}
	return max(time.Millisecond, p.scaled(d))
}

// knobValue is the value v of the strategy's field of knob k as controller.Options holds it.
func (p *inProcess) knobValue(k controller.Knob, v any) any {
	switch v := v.(type) {
	case *scenario.Duration:
		return p.duration(v, k.Default().(time.Duration), k.Off)
	case *bool:
		return ptr.Deref(v, k.Default().(bool) != k.Negated) != k.Negated
	}
	return v
}

// options are the controller.Options in-process replica id runs with, defaulted once for its
// manager and controller.
func (p *inProcess) options(id int, awsEndpoint string, reg prometheus.Registerer) (controller.Options, error) {
	o, err := p.strategyOptions(id, awsEndpoint, reg)
	if err != nil {
		return controller.Options{}, err
	}
	return o.WithDefaults(), nil
}

// strategyOptions maps the strategy onto controller.Options, every duration divided by the time
// scale; what the strategy leaves unset stays unset.
func (p *inProcess) strategyOptions(id int, awsEndpoint string, reg prometheus.Registerer) (controller.Options, error) {
	st := p.strategy
	thr, err := scaleThrottle(st.Throttle, p.clock.Scale())
	if err != nil {
		return controller.Options{}, err
	}
	seed := p.seed + uint64(id)*7919
	o := controller.Options{
		VpcID:         p.vpcID,
		LoadBalancers: p.loadBalancers,
		AWS: controller.AWSOptions{
			Region: p.creds.Region, Endpoint: awsEndpoint, AccessKeyID: p.creds.AccessKey, SecretAccessKey: p.creds.SecretKey,
		},
		LeaderElectionNamespace: p.leaseNS,
		Namespaces:              p.namespaces,
		Rand:                    rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		Logger:                  p.log.WithValues("replica", id),
		MetricsRegistry:         reg,
		AllowMutants:            st.Mutant != "", // the scenario asked for it explicitly
	}
	fields := reflect.ValueOf(st)
	for _, k := range controller.Knobs {
		k.Set(&o, p.knobValue(k, fields.FieldByName(k.GoName()).Interface()))
	}
	// The knobs whose option the strategy's field does not decide alone.
	o.LeaderElection = p.ElectsLeader()
	o.MaxConcurrentReconciles = p.workers()
	o.AWS.Throttle = thr
	o.MutantDelay = p.duration(st.MutantDelay, controller.DefaultMutantDelay(st.Mutant), false)
	if p.loadBalancers {
		// The stacks' cluster tag; without load balancers the TGB controller keeps running without a
		// cluster name, as it always has.
		o.ClusterName = p.clusterName
	}
	return o, nil
}

// workers is the strategy's worker count, or controller.warmupWorkers until the first restart.
func (p *inProcess) workers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.warmupWorkers > 0 && !p.restarted {
		return p.warmupWorkers
	}
	return p.strategy.MaxConcurrentReconciles
}
