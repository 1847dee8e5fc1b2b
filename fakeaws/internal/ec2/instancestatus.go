package ec2

import (
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// statusAttrs answers DescribeInstanceStatus's filter names: fakeaws's instances pass their status checks
// and have no scheduled events.
func statusAttrs(in state.Instance) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "instance-id":
			return []string{in.ID}, true
		case "availability-zone":
			return []string{in.AvailabilityZone}, true
		case "instance-state-name":
			return []string{in.State}, true
		case "instance-status.status", "system-status.status":
			return []string{"ok"}, true
		case "instance-status.reachability", "system-status.reachability":
			return []string{"passed"}, true
		case "event.code", "event.description", "event.instance-event-id", "event.not-after", "event.not-before":
			return nil, true
		}
		return nil, false
	}
}

// describeInstanceStatus lists the running instances (every instance with IncludeAllInstances) by
// InstanceId.N and filters, paginated by MaxResults (5-1000).
func (s *Service) describeInstanceStatus(now time.Time, f *query.Form) (any, error) {
	s.st.Settle(now)
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	all, err := f.Bool("IncludeAllInstances", false)
	if err != nil {
		return nil, query.Errorf("InvalidParameterValue", "Value (%s) for parameter includeAllInstances is invalid", f.Get("IncludeAllInstances"))
	}
	ids := f.Strings("InstanceId")
	sel, err := s.instanceCandidates(ids)
	if err != nil {
		return nil, err
	}
	zoneIDs := map[string]string{}
	for _, z := range s.st.Zones() {
		zoneIDs[z.Name] = z.ID
	}
	var matched []xInstanceStatus
	for _, in := range sel {
		if in.State != state.StateRunning && !all {
			continue
		}
		if ok, err := match(fs, statusAttrs(in)); err != nil {
			return nil, err
		} else if !ok {
			continue
		}
		x := xInstanceStatus{InstanceID: in.ID, AvailabilityZone: in.AvailabilityZone, AvailabilityZoneID: zoneIDs[in.AvailabilityZone],
			State: xState{Code: stateCodes[in.State], Name: in.State}, InstanceStatus: notApplicable, SystemStatus: notApplicable}
		if in.State == state.StateRunning {
			x.InstanceStatus, x.SystemStatus = passed, passed
		}
		matched = append(matched, x)
	}
	start, end, next, err := page(f, len(matched), len(ids) > 0)
	if err != nil {
		return nil, err
	}
	return &describeInstanceStatusResponse{Statuses: append([]xInstanceStatus{}, matched[start:end]...), NextToken: next}, nil
}

var (
	passed        = xStatusSummary{Status: "ok", Details: []xStatusDetail{{Name: "reachability", Status: "passed"}}}
	notApplicable = xStatusSummary{Status: "not-applicable"}
)

type describeInstanceStatusResponse struct {
	query.EC2Meta
	Statuses  []xInstanceStatus `xml:"instanceStatusSet>item"`
	NextToken string            `xml:"nextToken,omitempty"`
}

type xInstanceStatus struct {
	InstanceID         string         `xml:"instanceId"`
	AvailabilityZone   string         `xml:"availabilityZone"`
	AvailabilityZoneID string         `xml:"availabilityZoneId,omitempty"`
	State              xState         `xml:"instanceState"`
	InstanceStatus     xStatusSummary `xml:"instanceStatus"`
	SystemStatus       xStatusSummary `xml:"systemStatus"`
}

type xStatusSummary struct {
	Status  string          `xml:"status"`
	Details []xStatusDetail `xml:"details>item"`
}

type xStatusDetail struct {
	Name   string `xml:"name"`
	Status string `xml:"status"`
}
