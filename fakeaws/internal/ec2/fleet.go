package ec2

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/catalog"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// override is one launch pool of a CreateFleet request: a launch template config's override.
type override struct {
	lt                                state.LaunchTemplate
	ltVersion                         string
	instanceType, subnet, zone, image string
	priority                          float64
	hasPriority                       bool
	price                             float64
}

// createFleet runs an instant fleet: it orders the overrides by the allocation strategy (prioritized by
// Priority, every other strategy by price: fakeaws models no pool depth, so capacity-optimized picks
// the cheapest pool too), lists an error for every override whose pool has an injected capacity error,
// and launches the whole target capacity from the first pool that has capacity.
func (s *Service) createFleet(now time.Time, f *query.Form) (any, error) {
	if t := f.Get("Type"); t != "instant" {
		return nil, query.Errorf("InvalidParameterValue", "fakeaws serves instant fleets only; Type %q is not supported", t)
	}
	total, ok, err := f.Int("TargetCapacitySpecification.TotalTargetCapacity")
	if err != nil || !ok || total < 1 {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter TargetCapacitySpecification.TotalTargetCapacity")
	}
	lifecycle := f.Get("TargetCapacitySpecification.DefaultTargetCapacityType")
	strategy := f.Get("OnDemandOptions.AllocationStrategy")
	if lifecycle == "spot" {
		strategy = f.Get("SpotOptions.AllocationStrategy")
	} else if lifecycle != "on-demand" {
		return nil, query.Errorf("InvalidParameterValue", "DefaultTargetCapacityType %q is not spot or on-demand", lifecycle)
	}
	pools, err := s.fleetOverrides(f, lifecycle)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(pools, func(a, b override) int {
		if strategy == "prioritized" || strategy == "capacity-optimized-prioritized" {
			if c := cmpPriority(a, b); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.price, b.price)
	})
	res := &createFleetResponse{FleetID: "fleet-" + uuidish(s.st, now)}
	tags := tagSpecs(f, "TagSpecification", "instance")
	remaining := int(total)
	for _, p := range pools {
		if code := s.st.CapacityError(p.instanceType, p.zone); code != "" {
			res.Errors = append(res.Errors, xFleetError{Overrides: p.wire(), Lifecycle: lifecycle, Code: code, Message: capacityMessage(code, lifecycle, p)})
			continue
		}
		if remaining == 0 {
			continue
		}
		ins, err := s.st.Launch(now, s.launchSpec(p, lifecycle, tags), remaining)
		if err != nil {
			var qe *query.Error
			if errorsAs(err, &qe) {
				res.Errors = append(res.Errors, xFleetError{Overrides: p.wire(), Lifecycle: lifecycle, Code: qe.Code, Message: qe.Message})
				continue
			}
			return nil, err
		}
		fi := xFleetInstance{Overrides: p.wire(), Lifecycle: lifecycle, InstanceType: p.instanceType}
		for _, in := range ins {
			fi.InstanceIDs = append(fi.InstanceIDs, in.ID)
		}
		res.Instances = append(res.Instances, fi)
		remaining -= len(ins)
	}
	return res, nil
}

func cmpPriority(a, b override) int {
	switch {
	case a.hasPriority && !b.hasPriority:
		return -1
	case !a.hasPriority && b.hasPriority:
		return 1
	}
	return cmp.Compare(a.priority, b.priority)
}

func capacityMessage(code, lifecycle string, p override) string {
	if code != "InsufficientInstanceCapacity" {
		return fmt.Sprintf("Simulated %s for %s in %s", code, p.instanceType, p.zone)
	}
	if lifecycle == "spot" {
		return "There is no Spot capacity available that matches your request."
	}
	return fmt.Sprintf("We currently do not have sufficient %s capacity in the Availability Zone you requested (%s). Our system will be working on provisioning additional capacity.", p.instanceType, p.zone)
}

// fleetOverrides reads LaunchTemplateConfigs.N with their Overrides.M (a config without overrides is one
// pool of its template's own type and the default subnet of the first zone).
func (s *Service) fleetOverrides(f *query.Form, lifecycle string) ([]override, error) {
	configs := f.Members("LaunchTemplateConfigs")
	if len(configs) == 0 {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter LaunchTemplateConfigs")
	}
	var out []override
	for _, c := range configs {
		lt, err := s.st.LaunchTemplate(f.Get(c+".LaunchTemplateSpecification.LaunchTemplateId"), f.Get(c+".LaunchTemplateSpecification.LaunchTemplateName"))
		if err != nil {
			return nil, err
		}
		ovs := f.Members(c + ".Overrides")
		if len(ovs) == 0 {
			ovs = []string{c + ".Overrides.none"}
		}
		for _, o := range ovs {
			p := override{lt: lt, ltVersion: cmp.Or(f.Get(c+".LaunchTemplateSpecification.Version"), "$Default"),
				instanceType: cmp.Or(f.Get(o+".InstanceType"), lt.Data.InstanceType), subnet: f.Get(o + ".SubnetId"),
				zone: f.Get(o + ".AvailabilityZone"), image: cmp.Or(f.Get(o+".ImageId"), lt.Data.ImageID)}
			if pr := f.Get(o + ".Priority"); pr != "" {
				if p.priority, err = strconv.ParseFloat(pr, 64); err != nil {
					return nil, query.Errorf("InvalidParameterValue", "Invalid priority %q", pr)
				}
				p.hasPriority = true
			}
			if err := s.resolvePool(&p, lifecycle); err != nil {
				return nil, err
			}
			out = append(out, p)
		}
	}
	return out, nil
}

// resolvePool fills a pool's zone from its subnet (or its subnet from the zone's default subnet) and
// its price, and checks its type and image exist.
func (s *Service) resolvePool(p *override, lifecycle string) error {
	t, ok := catalog.Lookup(p.instanceType)
	if !ok {
		return query.Errorf("InvalidParameterValue", "The instance type '%s' does not exist", p.instanceType)
	}
	if p.image == "" {
		return query.Errorf("MissingParameter", "The request must contain the parameter ImageId")
	}
	if _, ok := ImageByID(p.image); !ok {
		return query.Errorf("InvalidAMIID.NotFound", "The image id '[%s]' does not exist", p.image)
	}
	subnets := s.st.Subnets()
	i := slices.IndexFunc(subnets, func(sn state.Subnet) bool {
		return sn.ID == p.subnet || (p.subnet == "" && (p.zone == "" || sn.AvailabilityZone == p.zone) && sn.DefaultForAZ)
	})
	if i < 0 {
		if p.subnet != "" {
			return query.Errorf("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", p.subnet)
		}
		return query.Errorf("InvalidParameterValue", "No default subnet for availability zone '%s'", p.zone)
	}
	p.subnet, p.zone = subnets[i].ID, subnets[i].AvailabilityZone
	p.price = t.OnDemandUSD
	if lifecycle == "spot" {
		p.price = t.SpotPrice(p.zone)
	}
	return nil
}

func (s *Service) launchSpec(p override, lifecycle string, tags []state.Tag) state.LaunchSpec {
	spec := state.LaunchSpec{InstanceType: p.instanceType, ImageID: p.image, SubnetID: p.subnet,
		SecurityGroupIDs: p.lt.Data.SecurityGroupIDs, LaunchTemplateID: p.lt.ID, UserData: p.lt.Data.UserData,
		IAMInstanceProfileARN: s.profileARN(p.lt.Data.IAMInstanceProfileARN, p.lt.Data.IAMInstanceProfile),
		Tags:                  append(ltInstanceTags(p.lt.Data.Members), tags...)}
	if lifecycle == "spot" {
		spec.Lifecycle = "spot"
	}
	return spec
}

func (s *Service) profileARN(arn, name string) string {
	if arn != "" || name == "" {
		return arn
	}
	if s.ProfileARN != nil {
		if a := s.ProfileARN(name); a != "" {
			return a
		}
	}
	// A profile IAM does not hold (a harness that names one without creating it): the ARN it would have at
	// path "/".
	return "arn:aws:iam::" + s.st.AccountID() + ":instance-profile/" + name
}

// ltInstanceTags are the instance tags of a template's TagSpecification.N members.
func ltInstanceTags(m map[string]string) []state.Tag {
	var out []state.Tag
	for i := 1; m["TagSpecification."+strconv.Itoa(i)+".ResourceType"] != ""; i++ {
		p := "TagSpecification." + strconv.Itoa(i)
		if m[p+".ResourceType"] != "instance" {
			continue
		}
		for j := 1; m[p+".Tag."+strconv.Itoa(j)+".Key"] != ""; j++ {
			out = append(out, state.Tag{Key: m[p+".Tag."+strconv.Itoa(j)+".Key"], Value: m[p+".Tag."+strconv.Itoa(j)+".Value"]})
		}
	}
	return out
}

// uuidish is a fleet ID's UUID part, from the store's ID generator.
func uuidish(st *state.Store, _ time.Time) string {
	h := strings.TrimPrefix(st.NewID("x-", 32), "x-")
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func (p override) wire() xLTAndOverrides {
	x := xLTAndOverrides{Spec: xFleetLTSpec{ID: p.lt.ID, Version: p.ltVersion},
		Overrides: xFleetOverrides{InstanceType: p.instanceType, SubnetID: p.subnet, AvailabilityZone: p.zone, ImageID: p.image}}
	if p.hasPriority {
		x.Overrides.Priority = &p.priority
	}
	return x
}

type createFleetResponse struct {
	query.EC2Meta
	FleetID   string           `xml:"fleetId"`
	Errors    []xFleetError    `xml:"errorSet>item"`
	Instances []xFleetInstance `xml:"fleetInstanceSet>item"`
}

type xFleetError struct {
	Overrides xLTAndOverrides `xml:"launchTemplateAndOverrides"`
	Lifecycle string          `xml:"lifecycle"`
	Code      string          `xml:"errorCode"`
	Message   string          `xml:"errorMessage"`
}

type xFleetInstance struct {
	Overrides    xLTAndOverrides `xml:"launchTemplateAndOverrides"`
	Lifecycle    string          `xml:"lifecycle"`
	InstanceIDs  []string        `xml:"instanceIds>item"`
	InstanceType string          `xml:"instanceType"`
}

type xLTAndOverrides struct {
	Spec      xFleetLTSpec    `xml:"launchTemplateSpecification"`
	Overrides xFleetOverrides `xml:"overrides"`
}

type xFleetLTSpec struct {
	ID      string `xml:"launchTemplateId"`
	Version string `xml:"version"`
}

type xFleetOverrides struct {
	InstanceType     string   `xml:"instanceType"`
	SubnetID         string   `xml:"subnetId"`
	AvailabilityZone string   `xml:"availabilityZone"`
	ImageID          string   `xml:"imageId"`
	Priority         *float64 `xml:"priority,omitempty"`
}
