// Package catalog holds the EC2 instance types fakeaws offers: the figures DescribeInstanceTypes answers
// with, and the ones a simulated kubelet needs to register a Node for an instance (capacity, pods).
package catalog

import (
	"slices"
	"strings"
)

// InstanceType is one EC2 instance type as DescribeInstanceTypes describes it.
type InstanceType struct {
	Name string
	// Architecture is "x86_64" or "arm64".
	Architecture string
	VCPUs        int32
	MemoryMiB    int64
	// MaxENIs and IPv4PerENI are the network card limits the VPC CNI sizes a node's pods by.
	MaxENIs    int32
	IPv4PerENI int32
	// Hypervisor is "nitro" or "xen".
	Hypervisor string
}

// MaxPods is the VPC CNI's pod limit for the type without prefix delegation, the kubelet's --max-pods on
// EKS's AMIs: every ENI's addresses but its primary, plus two host-network pods.
func (t InstanceType) MaxPods() int32 { return t.MaxENIs*(t.IPv4PerENI-1) + 2 }

// Family is the name before the dot ("m5" of "m5.large").
func (t InstanceType) Family() string { f, _, _ := strings.Cut(t.Name, "."); return f }

var types = []InstanceType{
	{Name: "m5.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 8192, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro"},
	{Name: "m5.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro"},
	{Name: "m5.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro"},
	{Name: "m5.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 65536, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro"},
	{Name: "c5.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 4096, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro"},
	{Name: "c5.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 8192, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro"},
	{Name: "r5.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 16384, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro"},
	{Name: "t3.medium", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 4096, MaxENIs: 3, IPv4PerENI: 6, Hypervisor: "nitro"},
	{Name: "m6g.large", Architecture: "arm64", VCPUs: 2, MemoryMiB: 8192, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro"},
}

// All returns every instance type, sorted by name.
func All() []InstanceType {
	out := slices.Clone(types)
	slices.SortFunc(out, func(a, b InstanceType) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the named type.
func Lookup(name string) (InstanceType, bool) {
	i := slices.IndexFunc(types, func(t InstanceType) bool { return t.Name == name })
	if i < 0 {
		return InstanceType{}, false
	}
	return types[i], true
}
