package actions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// fault starts an AWS fault; one with a duration ends in the background at its end, or when ctx
// ends first.
func (e *Executor) fault(ctx context.Context, st scenario.Step) error {
	now := e.clock.Now()
	var restore func() error
	detail := st.Fault
	switch st.Fault {
	case scenario.FaultProfile:
		detail += " " + st.Profile
		if err := e.backend.SetProfile(st.Profile); err != nil {
			return err
		}
		restore = func() error { return backend.ApplyMeasuredLimits(e.backend, &e.sc.AWS) }
	case scenario.FaultLimit:
		for op, l := range st.Limits {
			if err := e.backend.SetLimit(op, l.Rate, l.Burst); err != nil {
				return err
			}
		}
		restore = func() error {
			var errs []error
			for op := range st.Limits {
				if o, ok := e.sc.AWS.Overrides[op]; ok {
					errs = append(errs, e.backend.SetLimit(op, o.Rate, o.Burst))
				} else {
					errs = append(errs, e.backend.ClearLimit(op))
				}
			}
			return errors.Join(errs...)
		}
	case scenario.FaultErrors:
		detail += fmt.Sprintf(" %s %.0f%% %s", st.Operation, st.Rate*100, st.Code)
		if err := e.backend.SetErrorRate(backend.Operation(st.Operation), st.Rate, st.Code); err != nil {
			return err
		}
		restore = func() error { return e.backend.SetErrorRate(backend.Operation(st.Operation), 0, st.Code) }
	case scenario.FaultOutage:
		fnow, err := e.backend.Now()
		if err != nil {
			return err
		}
		if err := e.backend.AddOutage(fnow, st.Duration.Duration, st.AWSServices...); err != nil {
			return err
		}
	case scenario.FaultLatency:
		if err := e.backend.SetLatency(backend.Operation(st.Operation), st.Latency.Base.Duration, st.Latency.Jitter.Duration); err != nil {
			return err
		}
		restore = func() error {
			if l, ok := e.sc.AWS.Latency[opOrStar(st.Operation)]; ok {
				return e.backend.SetLatency(backend.Operation(st.Operation), l.Base.Duration, l.Jitter.Duration)
			}
			return e.backend.SetLatency(backend.Operation(st.Operation), 0, 0)
		}
	}
	var end *time.Time
	if st.Duration != nil && st.Duration.Duration > 0 {
		t := now.Add(e.clock.Wall(st.Duration.Duration))
		end = &t
		if restore != nil {
			e.faultsWG.Add(1)
			go func() {
				defer e.faultsWG.Done()
				if err := e.clock.SleepUntil(ctx, t); err != nil {
					e.log.V(1).Info("AWS fault ended early", "fault", st.Fault, "reason", err)
				}
				if err := restore(); err != nil {
					e.log.Error(err, "ending AWS fault", "fault", st.Fault)
				}
			}()
		}
	}
	e.event("awsFault", detail, now, end)
	return nil
}

func opOrStar(o string) string {
	if o == "" {
		return "*"
	}
	return o
}

func (e *Executor) drift(ctx context.Context, st scenario.Step) error {
	now := e.clock.Now()
	switch st.Kind {
	case scenario.DriftRemoveTarget:
		keys := e.fleet.ChooseTGBs(e.rng, st.Count, func(t workload.TGBInfo) bool { return t.Pods > 0 })
		for _, key := range keys {
			info, _ := e.fleet.TGB(key)
			ths, err := e.backend.Targets(info.TargetGroupARN)
			if err != nil || len(ths) == 0 {
				continue
			}
			th := ths[e.rng.IntN(len(ths))]
			at := e.clock.Now()
			if err := e.backend.RemoveTarget(info.TargetGroupARN, th.Target); err != nil {
				return fmt.Errorf("drift: removing %s from %s: %w", th.Target.ID, key, err)
			}
			e.mu.Lock()
			e.drifts = append(e.drifts, measure.Drift{ID: fmt.Sprintf("drift-%d", len(e.drifts)+1), TGB: key.String(),
				TargetGroupARN: info.TargetGroupARN, Target: &tgbexpect.Target{ID: th.Target.ID, Port: th.Target.Port}, At: e.sec(at)})
			e.mu.Unlock()
		}
	case scenario.DriftRevokeIngress:
		objs, err := e.pods.Objects(ctx)
		if err != nil {
			return err
		}
		want, err := objs.Desired()
		if err != nil {
			return err
		}
		keys := e.fleet.ChooseTGBs(e.rng, st.Count, func(t workload.TGBInfo) bool { return t.Networking != workload.NetworkingNone })
		// TGBs sharing a security group may want the same rule: revoke it once, count the drift for each.
		revoked := map[string]bool{}
		for _, key := range keys {
			d := want[key]
			if len(d.Rules) == 0 {
				continue
			}
			r := d.Rules[e.rng.IntN(len(d.Rules))]
			at := e.clock.Now()
			rule := fakeaws.Rule{Protocol: r.Protocol, FromPort: r.FromPort, ToPort: r.ToPort, CIDR: r.CIDR, SourceGroupID: r.SourceSecurityGroupID}
			if rk := fmt.Sprintf("%s|%+v", r.SecurityGroupID, rule); !revoked[rk] {
				if err := e.backend.RevokeIngress(r.SecurityGroupID, rule); err != nil {
					return fmt.Errorf("drift: revoking a rule of %s for %s: %w", r.SecurityGroupID, key, err)
				}
				revoked[rk] = true
			}
			e.mu.Lock()
			e.drifts = append(e.drifts, measure.Drift{ID: fmt.Sprintf("drift-%d", len(e.drifts)+1), TGB: key.String(),
				SecurityGroupID: r.SecurityGroupID, At: e.sec(at)})
			e.mu.Unlock()
		}
	}
	e.event("awsDrift", fmt.Sprintf("%s × %d", st.Kind, st.Count), now, nil)
	return nil
}
