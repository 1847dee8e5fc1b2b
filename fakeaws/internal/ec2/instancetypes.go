package ec2

import (
	"slices"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/catalog"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

func typeAttrs(t catalog.InstanceType) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "instance-type":
			return []string{t.Name}, true
		case "processor-info.supported-architecture":
			return []string{t.Architecture}, true
		case "supported-virtualization-type":
			return []string{"hvm"}, true
		case "supported-usage-class":
			return []string{"on-demand", "spot"}, true
		case "supported-root-device-type":
			return []string{"ebs"}, true
		case "current-generation":
			return []string{"true"}, true
		case "bare-metal":
			return []string{"false"}, true
		case "burstable-performance-supported":
			return []string{strconv.FormatBool(t.Burstable)}, true
		case "hypervisor":
			return []string{t.Hypervisor}, true
		case "vcpu-info.default-vcpus":
			return []string{strconv.Itoa(int(t.VCPUs))}, true
		case "memory-info.size-in-mib":
			return []string{strconv.FormatInt(t.MemoryMiB, 10)}, true
		case "network-info.maximum-network-interfaces":
			return []string{strconv.Itoa(int(t.MaxENIs))}, true
		case "network-info.ipv4-addresses-per-interface":
			return []string{strconv.Itoa(int(t.IPv4PerENI))}, true
		}
		return nil, false
	}
}

// describeInstanceTypes answers from the catalog: InstanceType.N (an unknown name is
// InvalidInstanceType), filters and MaxResults (5-100) pagination.
func (s *Service) describeInstanceTypes(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	names := f.Strings("InstanceType")
	all := catalog.All()
	for _, n := range names {
		if _, ok := catalog.Lookup(n); !ok {
			return nil, query.Errorf("InvalidInstanceType", "The following supplied instance types do not exist: [%s]", n)
		}
	}
	var matched []catalog.InstanceType
	for _, t := range all {
		if len(names) > 0 && !slices.Contains(names, t.Name) {
			continue
		}
		if ok, err := match(fs, typeAttrs(t)); err != nil {
			return nil, err
		} else if ok {
			matched = append(matched, t)
		}
	}
	start, end, next, err := pageRange(f, len(matched), 5, 100)
	if err != nil {
		return nil, err
	}
	res := &describeInstanceTypesResponse{NextToken: next, Types: make([]xInstanceType, 0, end-start)}
	for _, t := range matched[start:end] {
		res.Types = append(res.Types, wireInstanceType(t))
	}
	return res, nil
}

func wireInstanceType(t catalog.InstanceType) xInstanceType {
	return xInstanceType{
		InstanceType: t.Name, CurrentGeneration: true, UsageClasses: []string{"on-demand", "spot"},
		RootDeviceTypes: []string{"ebs"}, VirtualizationTypes: []string{"hvm"}, Hypervisor: t.Hypervisor,
		Burstable: t.Burstable, AutoRecovery: true,
		Processor: xProcessor{Architectures: []string{t.Architecture}, Manufacturer: t.Manufacturer},
		VCPU:      xVCPU{DefaultVCPUs: t.VCPUs, DefaultCores: max(1, t.VCPUs/threads(t)), DefaultThreadsPerCore: threads(t)},
		Memory:    xMemory{SizeInMiB: t.MemoryMiB},
		EBS:       xEBS{OptimizedSupport: "default", EncryptionSupport: "supported", NVMeSupport: "required"},
		Network: xNetwork{MaxENIs: t.MaxENIs, MaxCards: 1, IPv4PerENI: t.IPv4PerENI, IPv6PerENI: t.IPv4PerENI,
			IPv6Supported: true, ENASupport: "required", EncryptionInTransit: encryptionInTransit[t.Family()], Cards: []xNetworkCard{{Index: 0, MaxENIs: t.MaxENIs}}},
		PlacementGroup: xPlacementGroupInfo{Strategies: []string{"cluster", "partition", "spread"}},
		BootModes:      bootModes(t),
	}
}

// encryptionInTransit are the families of the catalog that encrypt traffic between instances in transit
// (AWS's "Encryption in transit" list: sixth-generation Intel and seventh-generation families).
var encryptionInTransit = map[string]bool{"m6i": true, "c6i": true, "r6i": true, "m7i": true, "c7i": true, "m7g": true, "c7g": true}

// threads is the type's threads per core: Graviton cores run one thread, Intel and AMD cores two.
func threads(t catalog.InstanceType) int32 {
	if t.Manufacturer == "AWS" {
		return 1
	}
	return 2
}

func bootModes(t catalog.InstanceType) []string {
	if t.Architecture == "arm64" {
		return []string{"uefi"}
	}
	return []string{"legacy-bios", "uefi"}
}

// describeInstanceTypeOfferings lists every catalog type in every zone (or once for the region), by
// LocationType and the location and instance-type filters.
func (s *Service) describeInstanceTypeOfferings(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	lt := f.Get("LocationType")
	var locations []string
	switch lt {
	case "", "region":
		lt, locations = "region", []string{s.st.Region()}
	case "availability-zone", "availability-zone-id":
		for _, z := range s.st.Zones() {
			locations = append(locations, map[bool]string{true: z.Name, false: z.ID}[lt == "availability-zone"])
		}
	default:
		return nil, query.Errorf("InvalidParameterValue", "Value (%s) for parameter locationType is invalid.", lt)
	}
	var matched []xOffering
	for _, t := range catalog.All() {
		for _, loc := range locations {
			a := func(name string) ([]string, bool) {
				switch name {
				case "location":
					return []string{loc}, true
				case "instance-type":
					return []string{t.Name}, true
				}
				return nil, false
			}
			if ok, err := match(fs, a); err != nil {
				return nil, err
			} else if ok {
				matched = append(matched, xOffering{InstanceType: t.Name, LocationType: lt, Location: loc})
			}
		}
	}
	start, end, next, err := pageRange(f, len(matched), 5, 1000)
	if err != nil {
		return nil, err
	}
	return &describeOfferingsResponse{NextToken: next, Offerings: slices.Clip(matched[start:end])}, nil
}

type describeInstanceTypesResponse struct {
	query.EC2Meta
	Types     []xInstanceType `xml:"instanceTypeSet>item"`
	NextToken string          `xml:"nextToken,omitempty"`
}

type describeOfferingsResponse struct {
	query.EC2Meta
	Offerings []xOffering `xml:"instanceTypeOfferingSet>item"`
	NextToken string      `xml:"nextToken,omitempty"`
}

type xOffering struct {
	InstanceType string `xml:"instanceType"`
	LocationType string `xml:"locationType"`
	Location     string `xml:"location"`
}

type xInstanceType struct {
	InstanceType        string              `xml:"instanceType"`
	CurrentGeneration   bool                `xml:"currentGeneration"`
	FreeTierEligible    bool                `xml:"freeTierEligible"`
	UsageClasses        []string            `xml:"supportedUsageClasses>item"`
	RootDeviceTypes     []string            `xml:"supportedRootDeviceTypes>item"`
	VirtualizationTypes []string            `xml:"supportedVirtualizationTypes>item"`
	BareMetal           bool                `xml:"bareMetal"`
	Hypervisor          string              `xml:"hypervisor"`
	Processor           xProcessor          `xml:"processorInfo"`
	VCPU                xVCPU               `xml:"vCpuInfo"`
	Memory              xMemory             `xml:"memoryInfo"`
	InstanceStorage     bool                `xml:"instanceStorageSupported"`
	EBS                 xEBS                `xml:"ebsInfo"`
	Network             xNetwork            `xml:"networkInfo"`
	PlacementGroup      xPlacementGroupInfo `xml:"placementGroupInfo"`
	Hibernation         bool                `xml:"hibernationSupported"`
	Burstable           bool                `xml:"burstablePerformanceSupported"`
	DedicatedHosts      bool                `xml:"dedicatedHostsSupported"`
	AutoRecovery        bool                `xml:"autoRecoverySupported"`
	BootModes           []string            `xml:"supportedBootModes>item"`
}

type xProcessor struct {
	Architectures []string `xml:"supportedArchitectures>item"`
	Manufacturer  string   `xml:"manufacturer"`
}

type xVCPU struct {
	DefaultVCPUs          int32 `xml:"defaultVCpus"`
	DefaultCores          int32 `xml:"defaultCores"`
	DefaultThreadsPerCore int32 `xml:"defaultThreadsPerCore"`
}

type xMemory struct {
	SizeInMiB int64 `xml:"sizeInMiB"`
}

type xEBS struct {
	OptimizedSupport  string `xml:"ebsOptimizedSupport"`
	EncryptionSupport string `xml:"encryptionSupport"`
	NVMeSupport       string `xml:"nvmeSupport"`
}

type xNetwork struct {
	MaxENIs             int32          `xml:"maximumNetworkInterfaces"`
	MaxCards            int32          `xml:"maximumNetworkCards"`
	DefaultCardIndex    int32          `xml:"defaultNetworkCardIndex"`
	Cards               []xNetworkCard `xml:"networkCards>item"`
	IPv4PerENI          int32          `xml:"ipv4AddressesPerInterface"`
	IPv6PerENI          int32          `xml:"ipv6AddressesPerInterface"`
	IPv6Supported       bool           `xml:"ipv6Supported"`
	ENASupport          string         `xml:"enaSupport"`
	EFASupported        bool           `xml:"efaSupported"`
	EncryptionInTransit bool           `xml:"encryptionInTransitSupported"`
}

type xNetworkCard struct {
	Index   int32 `xml:"networkCardIndex"`
	MaxENIs int32 `xml:"maximumNetworkInterfaces"`
}

type xPlacementGroupInfo struct {
	Strategies []string `xml:"supportedStrategies>item"`
}
