package workload

import (
	"errors"
	"net/netip"
)

// ErrAddressesExhausted is returned when the pod range of the VPC has no address left.
var ErrAddressesExhausted = errors.New("workload: pod addresses exhausted")

// ipAllocator hands out the addresses of a VPC range in order, skipping an excluded block (the node
// range) and addresses ending in .0 or .255. Addresses are never reused, so a new pod never takes an
// address a target group may still hold.
type ipAllocator struct {
	vpc, exclude netip.Prefix
	next         netip.Addr
}

func newIPAllocator(vpc, exclude netip.Prefix) *ipAllocator {
	return &ipAllocator{vpc: vpc.Masked(), exclude: exclude.Masked(), next: vpc.Masked().Addr().Next()}
}

// Next returns the next free address.
func (a *ipAllocator) Next() (string, error) {
	for {
		ip := a.next
		if !ip.IsValid() || !a.vpc.Contains(ip) {
			return "", ErrAddressesExhausted
		}
		a.next = ip.Next()
		if a.exclude.Contains(ip) {
			a.next = lastAddr(a.exclude).Next()
			continue
		}
		if b := ip.As4(); b[3] == 0 || b[3] == 255 {
			continue
		}
		return ip.String(), nil
	}
}

// lastAddr is the broadcast address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}
