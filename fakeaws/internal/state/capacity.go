package state

import (
	"net/netip"
	"slices"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// Instance lifecycle timing. A terminated instance stays visible to DescribeInstances for about an hour,
// as AWS documents; shutting down takes tens of seconds on Nitro.
const (
	ShutdownDelay    = 30 * time.Second
	TerminatedLinger = time.Hour
)

// Instance states, as EC2 names them.
const (
	StatePending      = "pending"
	StateRunning      = "running"
	StateShuttingDown = "shutting-down"
	StateTerminated   = "terminated"
)

// ReasonUserShutdown is the StateReason of an instance a TerminateInstances call ended.
const ReasonUserShutdown = "Client.UserInitiatedShutdown"

// Advance moves an instance along its lifecycle to scenario time now: pending becomes running at RunningAt,
// shutting-down becomes terminated at TerminatedAt. gone reports a terminated instance past its hour of
// visibility. Seeded instances (zero times) never move.
func Advance(in *Instance, now time.Time) (gone bool) {
	if in.State == StatePending && !in.RunningAt.IsZero() && !now.Before(in.RunningAt) {
		in.State = StateRunning
	}
	if in.State == StateShuttingDown && !in.TerminatedAt.IsZero() && !now.Before(in.TerminatedAt) {
		in.State = StateTerminated
	}
	return in.State == StateTerminated && !in.TerminatedAt.IsZero() && !now.Before(in.TerminatedAt.Add(TerminatedLinger))
}

// Settle advances every instance to now: a newly terminated instance releases its primary ENI (deleted on
// termination) and detaches the others; one past its visibility is removed.
func (s *Store) Settle(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, in := range s.instances {
		was := in.State
		gone := Advance(in, now)
		if was != StateTerminated && in.State == StateTerminated {
			s.releaseENIs(id)
		}
		if gone {
			delete(s.instances, id)
			s.instOrder.remove()
		}
	}
}

func (s *Store) releaseENIs(instanceID string) {
	for _, eid := range slices.Clone(s.eniByInstance[instanceID]) {
		e := s.enis[eid]
		s.unindexENI(e)
		if e.DeviceIndex == 0 {
			delete(s.enis, eid)
			s.eniOrder.remove()
			continue
		}
		e.InstanceID, e.DeviceIndex = "", 0
		s.indexENI(e)
	}
}

// LaunchSpec is what RunInstances or CreateFleet launches one instance with.
type LaunchSpec struct {
	InstanceType, ImageID, SubnetID string
	SecurityGroupIDs                []string
	Lifecycle, LaunchTemplateID     string
	UserData, IAMInstanceProfileARN string
	Tags                            []Tag
}

// Launch creates n pending instances in the spec's subnet, each with a primary ENI holding a free
// address of the subnet. They turn running after the configured boot delay.
func (s *Store) Launch(now time.Time, spec LaunchSpec, n int) ([]Instance, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sn, ok := s.subnets[spec.SubnetID]
	if !ok {
		return nil, notFound("InvalidSubnetID.NotFound", "subnet ID", spec.SubnetID)
	}
	if err := s.checkGroups(spec.SecurityGroupIDs); err != nil {
		return nil, err
	}
	out := make([]Instance, 0, n)
	for range n {
		ip, err := s.freeIP(sn)
		if err != nil {
			return out, err
		}
		in := &Instance{
			ID: s.newID("i-", 17), PrivateIP: ip, SubnetID: sn.ID, AvailabilityZone: sn.AvailabilityZone, VPCID: sn.VPCID,
			SecurityGroupIDs: slices.Clone(spec.SecurityGroupIDs), State: StatePending, Tags: cloneTags(spec.Tags),
			InstanceType: spec.InstanceType, ImageID: spec.ImageID, LaunchTime: now, Lifecycle: spec.Lifecycle,
			LaunchTemplateID: spec.LaunchTemplateID, UserData: spec.UserData, IAMInstanceProfileARN: spec.IAMInstanceProfileARN,
			RunningAt: now.Add(s.cfg.InstanceBootDelay),
		}
		in.PrimaryENIID = s.newID("eni-", 17)
		s.instances[in.ID] = in
		s.instOrder.add(in.ID)
		s.putENI(&ENI{
			ID: in.PrimaryENIID, PrivateIPs: []string{ip}, SecurityGroupIDs: slices.Clone(in.SecurityGroupIDs),
			SubnetID: sn.ID, AvailabilityZone: sn.AvailabilityZone, VPCID: sn.VPCID, InstanceID: in.ID,
			InterfaceType: InterfaceTypeInterface, MACAddress: macAddress(in.PrimaryENIID),
		})
		out = append(out, cloneInstance(in))
	}
	return out, nil
}

// freeIP is the lowest address of the subnet no ENI holds, past the four AWS reserves at its start.
func (s *Store) freeIP(sn *Subnet) (string, error) {
	p, err := netip.ParsePrefix(sn.CIDR)
	if err != nil || !p.Addr().Is4() {
		return "", query.Errorf("InvalidSubnet", "The subnet '%s' has no IPv4 range", sn.ID)
	}
	a := p.Masked().Addr()
	for range 4 {
		a = a.Next()
	}
	for ; p.Contains(a) && p.Contains(a.Next()); a = a.Next() { // the last address is reserved too
		if len(s.eniByIP[a.String()]) == 0 {
			return a.String(), nil
		}
	}
	return "", query.Errorf("InsufficientFreeAddressesInSubnet", "There are not enough free addresses in subnet '%s' to satisfy the requested number of instances.", sn.ID)
}

// StateChange is one instance's state before and after a TerminateInstances call.
type StateChange struct {
	ID, Previous, Current string
}

// Terminate starts shutting the instances down; all must exist (InvalidInstanceID.NotFound names the
// missing ones otherwise, and nothing changes). An instance already shutting down or terminated is unchanged.
func (s *Store) Terminate(now time.Time, ids []string) ([]StateChange, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var missing []string
	for _, id := range ids {
		if _, ok := s.instances[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, missing
	}
	out := make([]StateChange, 0, len(ids))
	for _, id := range ids {
		in := s.instances[id]
		c := StateChange{ID: id, Previous: in.State}
		if in.State != StateShuttingDown && in.State != StateTerminated {
			in.State, in.TerminatedAt, in.StateReason = StateShuttingDown, now.Add(ShutdownDelay), ReasonUserShutdown
		}
		c.Current = in.State
		out = append(out, c)
	}
	return out, nil
}

// capKey names an injected capacity failure: an instance type in a zone ("" for every zone).
type capKey struct{ instanceType, zone string }

// SetCapacityError makes launches of the type in the zone ("" for every zone) fail with code (for example
// InsufficientInstanceCapacity); an empty code clears it.
func (s *Store) SetCapacityError(instanceType, zone, code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == "" {
		delete(s.capErrs, capKey{instanceType, zone})
		return
	}
	s.capErrs[capKey{instanceType, zone}] = code
}

// CapacityError is the injected failure of launching the type in the zone, or "".
func (s *Store) CapacityError(instanceType, zone string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.capErrs[capKey{instanceType, zone}]; ok {
		return c
	}
	return s.capErrs[capKey{instanceType, ""}]
}
