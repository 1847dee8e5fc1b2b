package ec2

import (
	"cmp"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/catalog"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

var errorsAs = func(err error, target **query.Error) bool { return errors.As(err, target) }

// runInstances launches MaxCount instances of one type and image into one subnet, from the request's
// fields or its launch template's; an injected capacity error for the type and zone fails the call.
func (s *Service) runInstances(now time.Time, f *query.Form) (any, error) {
	minC, okMin, err1 := f.Int("MinCount")
	maxC, okMax, err2 := f.Int("MaxCount")
	if err1 != nil || err2 != nil || !okMin || !okMax || minC < 1 || maxC < minC {
		return nil, query.Errorf("InvalidParameterValue", "MinCount and MaxCount must be set, at least 1, and MinCount at most MaxCount")
	}
	var lt state.LaunchTemplate
	if id, name := f.Get("LaunchTemplate.LaunchTemplateId"), f.Get("LaunchTemplate.LaunchTemplateName"); id != "" || name != "" {
		var err error
		if lt, err = s.st.LaunchTemplate(id, name); err != nil {
			return nil, err
		}
	}
	p := override{lt: lt, instanceType: cmp.Or(f.Get("InstanceType"), lt.Data.InstanceType, "m1.small"),
		subnet: f.Get("SubnetId"), zone: f.Get("Placement.AvailabilityZone"), image: cmp.Or(f.Get("ImageId"), lt.Data.ImageID)}
	if _, ok := catalog.Lookup(p.instanceType); !ok {
		return nil, query.Errorf("InvalidParameterValue", "Invalid value '%s' for InstanceType.", p.instanceType)
	}
	lifecycle := "on-demand"
	if f.Get("InstanceMarketOptions.MarketType") == "spot" {
		lifecycle = "spot"
	}
	if err := s.resolvePool(&p, lifecycle); err != nil {
		return nil, err
	}
	if code := s.st.CapacityError(p.instanceType, p.zone); code != "" {
		return nil, query.NewError(code, capacityMessage(code, lifecycle, p))
	}
	spec := s.launchSpec(p, lifecycle, tagSpecs(f, "TagSpecification", "instance"))
	if groups := f.Strings("SecurityGroupId"); len(groups) > 0 {
		spec.SecurityGroupIDs = groups
	}
	if ud := f.Get("UserData"); ud != "" {
		if _, err := base64.StdEncoding.DecodeString(ud); err != nil {
			return nil, query.Errorf("InvalidUserData.Malformed", "Invalid BASE64 encoding of user data.")
		}
		spec.UserData = ud
	}
	if arn, name := f.Get("IamInstanceProfile.Arn"), f.Get("IamInstanceProfile.Name"); arn != "" || name != "" {
		spec.IAMInstanceProfileARN = s.profileARN(arn, name)
	}
	ins, err := s.st.Launch(now, spec, int(maxC))
	if err != nil && len(ins) < int(minC) {
		if len(ins) > 0 { // launched fewer than MinCount: AWS launches none
			ids := make([]string, 0, len(ins))
			for _, in := range ins {
				ids = append(ids, in.ID)
			}
			s.st.Terminate(now, ids)
		}
		return nil, err
	}
	res := &runInstancesResponse{OwnerID: s.st.AccountID(), GroupSet: s.groupSet(spec.SecurityGroupIDs)}
	if len(ins) > 0 {
		res.ReservationID = reservationID(ins[0].ID)
	}
	enis := s.attachedENIs(ins)
	for _, in := range ins {
		res.Instances = append(res.Instances, s.wireInstance(in, enis[in.ID]))
	}
	return res, nil
}

// terminateInstances starts shutting the instances down and answers their state changes.
func (s *Service) terminateInstances(now time.Time, f *query.Form) (any, error) {
	s.st.Settle(now)
	ids := f.Strings("InstanceId")
	if len(ids) == 0 {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter InstanceId")
	}
	for _, id := range ids {
		if !strings.HasPrefix(id, "i-") {
			return nil, query.Errorf("InvalidInstanceID.Malformed", "Invalid id: \"%s\"", id)
		}
	}
	changes, missing := s.st.Terminate(now, ids)
	if len(missing) > 0 {
		return nil, query.Errorf("InvalidInstanceID.NotFound", "The instance IDs '%s' do not exist", strings.Join(missing, ", "))
	}
	res := &terminateInstancesResponse{Changes: make([]xStateChange, 0, len(changes))}
	for _, c := range changes {
		res.Changes = append(res.Changes, xStateChange{InstanceID: c.ID, Previous: xState{Code: stateCodes[c.Previous], Name: c.Previous},
			Current: xState{Code: stateCodes[c.Current], Name: c.Current}})
	}
	return res, nil
}

// deleteTags removes Tag.N (a tag without Value goes whatever its value) from every ResourceId.N.
func (s *Service) deleteTags(_ time.Time, f *query.Form) (any, error) {
	ids := f.Strings("ResourceId")
	if len(ids) == 0 {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter resourceIdSet")
	}
	var tags []state.Tag
	var withValue []bool
	for _, p := range f.Members("Tag") {
		tags = append(tags, state.Tag{Key: f.Get(p + ".Key"), Value: f.Get(p + ".Value")})
		withValue = append(withValue, f.Has(p+".Value"))
	}
	if err := s.st.DeleteTags(ids, tags, withValue); err != nil {
		return nil, err
	}
	return &returnResponse{Return: true}, nil
}

type runInstancesResponse struct {
	query.EC2Meta
	ReservationID string      `xml:"reservationId"`
	OwnerID       string      `xml:"ownerId"`
	GroupSet      []xGroup    `xml:"groupSet>item"`
	Instances     []xInstance `xml:"instancesSet>item"`
}

type terminateInstancesResponse struct {
	query.EC2Meta
	Changes []xStateChange `xml:"instancesSet>item"`
}

type xStateChange struct {
	InstanceID string `xml:"instanceId"`
	Current    xState `xml:"currentState"`
	Previous   xState `xml:"previousState"`
}
