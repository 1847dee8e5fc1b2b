package state

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"net/netip"
	"slices"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// SeedENI adds (or replaces) a network interface: a pod's branch ENI, a node's trunk ENI, or a further ENI
// attached to an instance (whose secondary IPs are pod IPs under the VPC CNI). A replaced ENI keeps nothing of
// the old one.
func (s *Store) SeedENI(e ENI) (ENI, error) {
	if len(e.PrivateIPs) == 0 {
		return ENI{}, query.Errorf("MissingParameter", "an ENI needs at least one private IP")
	}
	for _, ip := range e.PrivateIPs {
		if _, err := netip.ParseAddr(ip); err != nil {
			return ENI{}, query.Errorf("InvalidParameterValue", "invalid private IP %q", ip)
		}
	}
	if e.InterfaceType == "" {
		e.InterfaceType = InterfaceTypeInterface
	}
	if err := checkInterfaceType(e); err != nil {
		return ENI{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	vpc, err := s.vpcOrDefault(e.VPCID)
	if err != nil {
		return ENI{}, err
	}
	if err := s.checkGroups(e.SecurityGroupIDs); err != nil {
		return ENI{}, err
	}
	if e.ID == "" {
		e.ID = s.newID("eni-", 17)
	}
	if err := s.checkAttachment(e); err != nil {
		return ENI{}, err
	}
	if e.MACAddress == "" {
		e.MACAddress = macAddress(e.ID)
	}
	e.VPCID = vpc
	e.PrivateIPs = slices.Clone(e.PrivateIPs)
	e.SecurityGroupIDs = slices.Clone(e.SecurityGroupIDs)
	e.Tags = cloneTags(e.Tags)
	s.putENI(&e)
	return cloneENI(&e), nil
}

func checkInterfaceType(e ENI) error {
	switch e.InterfaceType {
	case InterfaceTypeInterface, InterfaceTypeTrunk:
	case InterfaceTypeBranch:
		if e.InstanceID != "" {
			return query.Errorf("InvalidParameterCombination", "A branch network interface is associated with a trunk interface and cannot be attached to instance '%s'", e.InstanceID)
		}
	default:
		return query.Errorf("InvalidParameterValue", "Value (%s) for parameter interfaceType is invalid.", e.InterfaceType)
	}
	if e.InstanceID == "" && e.DeviceIndex != 0 {
		return query.Errorf("InvalidParameterCombination", "A device index needs an instance to attach the network interface to")
	}
	return nil
}

// checkAttachment validates an attached ENI against its instance: the instance exists, device index 0 is the
// primary ENI's alone, no other ENI holds the index, and an instance has at most one trunk. s.mu is held.
func (s *Store) checkAttachment(e ENI) error {
	if old, ok := s.enis[e.ID]; ok && old.InstanceID != "" && old.InstanceID != e.InstanceID && old.DeviceIndex == 0 {
		return query.Errorf("OperationNotPermitted", "The network interface at device index 0 cannot be detached.")
	}
	if e.InstanceID == "" {
		return nil
	}
	in, ok := s.instances[e.InstanceID]
	if !ok {
		return query.Errorf("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", e.InstanceID)
	}
	if e.DeviceIndex < 0 {
		return query.Errorf("InvalidParameterValue", "Value (%d) for parameter deviceIndex is invalid.", e.DeviceIndex)
	}
	if (e.DeviceIndex == 0) != (e.ID == in.PrimaryENIID) {
		return query.Errorf("InvalidParameterValue", "Device index 0 of instance '%s' is its primary network interface %s", in.ID, in.PrimaryENIID)
	}
	for _, id := range s.eniByInstance[in.ID] {
		other := s.enis[id]
		if id == e.ID {
			continue
		}
		if other.DeviceIndex == e.DeviceIndex {
			return query.Errorf("InvalidParameterValue", "Instance '%s' already has an interface attached at device index '%d'.", in.ID, e.DeviceIndex)
		}
		if e.InterfaceType == InterfaceTypeTrunk && other.InterfaceType == InterfaceTypeTrunk {
			return query.Errorf("InvalidParameterValue", "Instance '%s' already has a trunk interface %s", in.ID, other.ID)
		}
	}
	return nil
}

// macAddress derives a stable, locally administered MAC from an ENI ID, as EC2 assigns one per interface.
func macAddress(id string) string {
	h := fnv.New64a()
	h.Write([]byte(id))
	v := h.Sum64()
	return fmt.Sprintf("0a:%02x:%02x:%02x:%02x:%02x", byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// Status is the ENI's EC2 status: attached and branch ENIs (in use through their trunk) are "in-use".
func (e ENI) Status() string {
	if e.InstanceID != "" || e.InterfaceType == InterfaceTypeBranch {
		return "in-use"
	}
	return "available"
}

func cloneENI(e *ENI) ENI {
	c := *e
	c.PrivateIPs = slices.Clone(e.PrivateIPs)
	c.SecurityGroupIDs = slices.Clone(e.SecurityGroupIDs)
	c.Tags = cloneTags(e.Tags)
	return c
}

// ENIs returns all network interfaces sorted by ID.
func (s *Store) ENIs() []ENI {
	s.mu.Lock()
	defer s.mu.Unlock()
	return inOrder(s.enis, s.eniOrder.keys(nil), cloneENI) // ENIs are never removed
}

// ENIsByID returns the network interfaces of ids in order and -1, or nil and the index of the first ID that
// does not exist.
func (s *Store) ENIsByID(ids []string) ([]ENI, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return lookup(s.enis, ids, cloneENI)
}

// KnownENIs returns, sorted by ID and each once, the network interfaces of ids that exist.
func (s *Store) KnownENIs(ids []string) []ENI {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sortedENIs(slices.Clone(ids))
}

// ENIsByPrivateIP returns, sorted by ID and each once, the network interfaces holding any of ips (primary or
// secondary).
func (s *Store) ENIsByPrivateIP(ips []string) []ENI { return s.indexedENIs(s.eniByIP, ips) }

// ENIsByInstance returns, sorted by ID and each once, the network interfaces attached to any of instanceIDs.
func (s *Store) ENIsByInstance(instanceIDs []string) []ENI {
	return s.indexedENIs(s.eniByInstance, instanceIDs)
}

// indexedENIs returns the ENIs an index (one of the store's, set at construction) lists for any of keys,
// sorted by ID and each once.
func (s *Store) indexedENIs(index map[string][]string, keys []string) []ENI {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, k := range keys {
		ids = append(ids, index[k]...)
	}
	return s.sortedENIs(ids)
}

// AttachedENIs maps each of instanceIDs to its attached network interfaces, by device index.
func (s *Store) AttachedENIs(instanceIDs []string) map[string][]ENI {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][]ENI, len(instanceIDs))
	for _, in := range instanceIDs {
		ids := s.eniByInstance[in]
		enis := make([]ENI, 0, len(ids))
		for _, id := range ids {
			enis = append(enis, cloneENI(s.enis[id]))
		}
		slices.SortFunc(enis, func(a, b ENI) int { return cmp.Compare(a.DeviceIndex, b.DeviceIndex) })
		out[in] = enis
	}
	return out
}

// sortedENIs clones the ENIs of ids that exist, sorted by ID and each once; it reorders ids.
func (s *Store) sortedENIs(ids []string) []ENI {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make([]ENI, 0, len(ids))
	for _, id := range ids {
		if e, ok := s.enis[id]; ok {
			out = append(out, cloneENI(e))
		}
	}
	return out
}
