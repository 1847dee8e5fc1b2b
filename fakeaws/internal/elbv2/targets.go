package elbv2

import (
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

func (s *Service) targetsRequest(f *query.Form) (string, []state.Target, error) {
	arn, err := required(f, "TargetGroupArn")
	if err != nil {
		return "", nil, err
	}
	ts, err := Targets(f)
	if err != nil {
		return "", nil, err
	}
	return arn, ts, nil
}

func (s *Service) registerTargets(now time.Time, f *query.Form) (any, error) {
	arn, ts, err := s.targetsRequest(f)
	if err != nil {
		return nil, err
	}
	return nil, s.st.RegisterTargets(arn, ts, now)
}

func (s *Service) deregisterTargets(now time.Time, f *query.Form) (any, error) {
	arn, ts, err := s.targetsRequest(f)
	if err != nil {
		return nil, err
	}
	return nil, s.st.DeregisterTargets(arn, ts, now)
}

func (s *Service) describeTargetHealth(now time.Time, f *query.Form) (any, error) {
	arn, ts, err := s.targetsRequest(f)
	if err != nil {
		return nil, err
	}
	tg, err := s.st.TargetGroup(arn)
	if err != nil {
		return nil, err
	}
	hs, err := s.st.TargetHealth(arn, ts, now)
	if err != nil {
		return nil, err
	}
	res := targetHealthResult{TargetHealthDescriptions: make([]xTargetHealthDescription, 0, len(hs))}
	for _, h := range hs {
		hcPort := tg.HealthCheck.Port
		if hcPort == "traffic-port" || hcPort == "" {
			hcPort = strconv.Itoa(int(h.Target.Port))
		}
		res.TargetHealthDescriptions = append(res.TargetHealthDescriptions, xTargetHealthDescription{
			Target:          xTarget{Id: h.Target.ID, Port: h.Target.Port, AvailabilityZone: h.Target.AvailabilityZone},
			HealthCheckPort: hcPort,
			TargetHealth:    xTargetHealth{State: h.State, Reason: h.Reason, Description: h.Description},
		})
	}
	return res, nil
}
