// Package catalog holds the EC2 instance types fakeaws offers: the figures DescribeInstanceTypes answers
// with, and the ones a simulated kubelet needs to register a Node for an instance (capacity, pods).
//
// The figures are AWS's own. vCPUs and memory are the instance-type documentation's ("Amazon EC2 instance
// types": general purpose m5/m6i/m7i/m6g/m7g/t3, compute optimised c5/c6i/c7i/c6g/c7g, memory optimised
// r5/r6i/r6g). Network interfaces, IPv4 addresses per interface, network cards, hypervisor and bare metal
// are the ENI limits table AWS publishes (the VPC CNI's eni-max-pods.txt; aws/karpenter-provider-aws
// pkg/providers/instancetype/zz_generated.vpclimits.go, generated 2026-08-06, carries the same figures
// per type). On-demand prices are us-east-1 Linux list prices (USD per hour) as the same repository's
// pkg/providers/pricing/zz_generated.pricing_aws.go records them (2026-07-20).
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
	// MaxENIs and IPv4PerENI are the network card limits the VPC CNI sizes a node's pods by. Every type
	// here has one network card, which takes all MaxENIs.
	MaxENIs    int32
	IPv4PerENI int32
	// Hypervisor is "nitro" or "xen".
	Hypervisor string
	// Manufacturer is the processor's: "Intel", "AMD" or "AWS" (Graviton).
	Manufacturer string
	// Burstable is true for the T families (CPU credits).
	Burstable bool
	// OnDemandUSD is the on-demand price per hour; spot prices derive from it (see SpotPrice).
	OnDemandUSD float64
}

// MaxPods is the VPC CNI's pod limit for the type without prefix delegation, the kubelet's --max-pods on
// EKS's AMIs: every ENI's addresses but its primary, plus two host-network pods.
func (t InstanceType) MaxPods() int32 { return t.MaxENIs*(t.IPv4PerENI-1) + 2 }

// Family is the name before the dot ("m5" of "m5.large").
func (t InstanceType) Family() string { f, _, _ := strings.Cut(t.Name, "."); return f }

// SpotPrice is a deterministic spot price for the type in a zone: spot trades at roughly 30-40 % of
// on-demand, and differs a little by zone so that a lowest-price strategy has a zone to prefer. The last
// letter of the zone name picks the discount.
func (t InstanceType) SpotPrice(zone string) float64 {
	discount := 0.34
	if zone != "" {
		discount += float64(zone[len(zone)-1]%4) * 0.02
	}
	return float64(int64(t.OnDemandUSD*discount*1e4+0.5)) / 1e4
}

var types = []InstanceType{
	{Name: "m5.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 8192, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.096000},
	{Name: "m5.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.192000},
	{Name: "m5.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.384000},
	{Name: "m5.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 65536, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.768000},
	{Name: "m5.8xlarge", Architecture: "x86_64", VCPUs: 32, MemoryMiB: 131072, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 1.536000},
	{Name: "m5.12xlarge", Architecture: "x86_64", VCPUs: 48, MemoryMiB: 196608, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 2.304000},
	{Name: "m6i.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 8192, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.096000},
	{Name: "m6i.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.192000},
	{Name: "m6i.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.384000},
	{Name: "m6i.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 65536, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.768000},
	{Name: "m6i.8xlarge", Architecture: "x86_64", VCPUs: 32, MemoryMiB: 131072, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 1.536000},
	{Name: "m7i.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 8192, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.100800},
	{Name: "m7i.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.201600},
	{Name: "m7i.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.403200},
	{Name: "m7i.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 65536, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.806400},
	{Name: "m7i.8xlarge", Architecture: "x86_64", VCPUs: 32, MemoryMiB: 131072, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 1.612800},
	{Name: "c5.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 4096, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.085000},
	{Name: "c5.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 8192, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.170000},
	{Name: "c5.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.340000},
	{Name: "c5.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 32768, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.680000},
	{Name: "c5.9xlarge", Architecture: "x86_64", VCPUs: 36, MemoryMiB: 73728, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 1.530000},
	{Name: "c6i.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 4096, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.085000},
	{Name: "c6i.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 8192, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.170000},
	{Name: "c6i.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.340000},
	{Name: "c6i.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 32768, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.680000},
	{Name: "c6i.8xlarge", Architecture: "x86_64", VCPUs: 32, MemoryMiB: 65536, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 1.360000},
	{Name: "c7i.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 4096, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.089250},
	{Name: "c7i.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 8192, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.178500},
	{Name: "c7i.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.357000},
	{Name: "c7i.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 32768, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.714000},
	{Name: "r5.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 16384, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.126000},
	{Name: "r5.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.252000},
	{Name: "r5.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 65536, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.504000},
	{Name: "r5.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 131072, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 1.008000},
	{Name: "r6i.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 16384, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.126000},
	{Name: "r6i.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.252000},
	{Name: "r6i.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 65536, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 0.504000},
	{Name: "r6i.4xlarge", Architecture: "x86_64", VCPUs: 16, MemoryMiB: 131072, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "Intel", OnDemandUSD: 1.008000},
	{Name: "m6g.medium", Architecture: "arm64", VCPUs: 1, MemoryMiB: 4096, MaxENIs: 2, IPv4PerENI: 4, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.038500},
	{Name: "m6g.large", Architecture: "arm64", VCPUs: 2, MemoryMiB: 8192, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.077000},
	{Name: "m6g.xlarge", Architecture: "arm64", VCPUs: 4, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.154000},
	{Name: "m6g.2xlarge", Architecture: "arm64", VCPUs: 8, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.308000},
	{Name: "m6g.4xlarge", Architecture: "arm64", VCPUs: 16, MemoryMiB: 65536, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.616000},
	{Name: "m7g.medium", Architecture: "arm64", VCPUs: 1, MemoryMiB: 4096, MaxENIs: 2, IPv4PerENI: 4, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.040800},
	{Name: "m7g.large", Architecture: "arm64", VCPUs: 2, MemoryMiB: 8192, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.081600},
	{Name: "m7g.xlarge", Architecture: "arm64", VCPUs: 4, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.163200},
	{Name: "m7g.2xlarge", Architecture: "arm64", VCPUs: 8, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.326400},
	{Name: "m7g.4xlarge", Architecture: "arm64", VCPUs: 16, MemoryMiB: 65536, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.652800},
	{Name: "c6g.medium", Architecture: "arm64", VCPUs: 1, MemoryMiB: 2048, MaxENIs: 2, IPv4PerENI: 4, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.034000},
	{Name: "c6g.large", Architecture: "arm64", VCPUs: 2, MemoryMiB: 4096, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.068000},
	{Name: "c6g.xlarge", Architecture: "arm64", VCPUs: 4, MemoryMiB: 8192, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.136000},
	{Name: "c6g.2xlarge", Architecture: "arm64", VCPUs: 8, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.272000},
	{Name: "c6g.4xlarge", Architecture: "arm64", VCPUs: 16, MemoryMiB: 32768, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.544000},
	{Name: "c7g.medium", Architecture: "arm64", VCPUs: 1, MemoryMiB: 2048, MaxENIs: 2, IPv4PerENI: 4, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.036300},
	{Name: "c7g.large", Architecture: "arm64", VCPUs: 2, MemoryMiB: 4096, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.072500},
	{Name: "c7g.xlarge", Architecture: "arm64", VCPUs: 4, MemoryMiB: 8192, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.145000},
	{Name: "c7g.2xlarge", Architecture: "arm64", VCPUs: 8, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.290000},
	{Name: "c7g.4xlarge", Architecture: "arm64", VCPUs: 16, MemoryMiB: 32768, MaxENIs: 8, IPv4PerENI: 30, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.580000},
	{Name: "r6g.large", Architecture: "arm64", VCPUs: 2, MemoryMiB: 16384, MaxENIs: 3, IPv4PerENI: 10, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.100800},
	{Name: "r6g.xlarge", Architecture: "arm64", VCPUs: 4, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.201600},
	{Name: "r6g.2xlarge", Architecture: "arm64", VCPUs: 8, MemoryMiB: 65536, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "AWS", OnDemandUSD: 0.403200},
	{Name: "t3.micro", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 1024, MaxENIs: 2, IPv4PerENI: 2, Hypervisor: "nitro", Manufacturer: "Intel", Burstable: true, OnDemandUSD: 0.010400},
	{Name: "t3.small", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 2048, MaxENIs: 3, IPv4PerENI: 4, Hypervisor: "nitro", Manufacturer: "Intel", Burstable: true, OnDemandUSD: 0.020800},
	{Name: "t3.medium", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 4096, MaxENIs: 3, IPv4PerENI: 6, Hypervisor: "nitro", Manufacturer: "Intel", Burstable: true, OnDemandUSD: 0.041600},
	{Name: "t3.large", Architecture: "x86_64", VCPUs: 2, MemoryMiB: 8192, MaxENIs: 3, IPv4PerENI: 12, Hypervisor: "nitro", Manufacturer: "Intel", Burstable: true, OnDemandUSD: 0.083200},
	{Name: "t3.xlarge", Architecture: "x86_64", VCPUs: 4, MemoryMiB: 16384, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", Burstable: true, OnDemandUSD: 0.166400},
	{Name: "t3.2xlarge", Architecture: "x86_64", VCPUs: 8, MemoryMiB: 32768, MaxENIs: 4, IPv4PerENI: 15, Hypervisor: "nitro", Manufacturer: "Intel", Burstable: true, OnDemandUSD: 0.332800},
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
