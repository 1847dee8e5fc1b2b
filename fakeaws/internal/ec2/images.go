package ec2

import (
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// EKSImageOwner is the account that publishes the EKS-optimised AMIs (owner alias "amazon").
const EKSImageOwner = "602401143452"

// Image is a public AMI DescribeImages answers with.
type Image struct {
	ID, Name, Architecture, Description string
	Created                             time.Time
}

// Images are the seeded EKS-optimised Amazon Linux 2023 AMIs, two releases per architecture, named and
// dated as EKS names its releases (amazon-eks-node-al2023-<arch>-standard-<k8s>-v<date>). The IDs are
// fakeaws's own.
var Images = []Image{
	{ID: "ami-0a1b2c3d4e5f60711", Name: "amazon-eks-node-al2023-x86_64-standard-1.34-v20251103", Architecture: "x86_64",
		Created: time.Date(2025, 11, 4, 2, 11, 53, 0, time.UTC)},
	{ID: "ami-0a1b2c3d4e5f60712", Name: "amazon-eks-node-al2023-arm64-standard-1.34-v20251103", Architecture: "arm64",
		Created: time.Date(2025, 11, 4, 2, 14, 7, 0, time.UTC)},
	{ID: "ami-0a1b2c3d4e5f60721", Name: "amazon-eks-node-al2023-x86_64-standard-1.34-v20251120", Architecture: "x86_64",
		Created: time.Date(2025, 11, 21, 1, 48, 22, 0, time.UTC)},
	{ID: "ami-0a1b2c3d4e5f60722", Name: "amazon-eks-node-al2023-arm64-standard-1.34-v20251120", Architecture: "arm64",
		Created: time.Date(2025, 11, 21, 1, 52, 40, 0, time.UTC)},
}

// ImageByID returns a seeded image.
func ImageByID(id string) (Image, bool) {
	i := slices.IndexFunc(Images, func(im Image) bool { return im.ID == id })
	if i < 0 {
		return Image{}, false
	}
	return Images[i], true
}

func imageAttrs(im Image) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "image-id":
			return []string{im.ID}, true
		case "name":
			return []string{im.Name}, true
		case "owner-id":
			return []string{EKSImageOwner}, true
		case "owner-alias":
			return []string{"amazon"}, true
		case "architecture":
			return []string{im.Architecture}, true
		case "state":
			return []string{"available"}, true
		case "is-public":
			return []string{"true"}, true
		case "image-type":
			return []string{"machine"}, true
		case "virtualization-type":
			return []string{"hvm"}, true
		case "root-device-type":
			return []string{"ebs"}, true
		}
		return tagAttrs(nil, name)
	}
}

// describeImages answers from the seeded images by ImageId.N, Owner.N ("amazon", "self" or an account)
// and filters.
func (s *Service) describeImages(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids := f.Strings("ImageId")
	for _, id := range ids {
		if !strings.HasPrefix(id, "ami-") {
			return nil, query.Errorf("InvalidAMIID.Malformed", "Invalid id: \"%s\" (expecting \"ami-...\")", id)
		}
		if _, ok := ImageByID(id); !ok {
			return nil, query.Errorf("InvalidAMIID.NotFound", "The image id '[%s]' does not exist", id)
		}
	}
	owners := f.Strings("Owner")
	var matched []Image
	for _, im := range Images {
		if len(ids) > 0 && !slices.Contains(ids, im.ID) {
			continue
		}
		if len(owners) > 0 && !slices.Contains(owners, "amazon") && !slices.Contains(owners, EKSImageOwner) {
			continue
		}
		if ok, err := match(fs, imageAttrs(im)); err != nil {
			return nil, err
		} else if ok {
			matched = append(matched, im)
		}
	}
	start, end, next, err := page(f, len(matched), len(ids) > 0)
	if err != nil {
		return nil, err
	}
	res := &describeImagesResponse{NextToken: next, Images: make([]xImage, 0, end-start)}
	for _, im := range matched[start:end] {
		res.Images = append(res.Images, xImage{ImageID: im.ID, Name: im.Name, Architecture: im.Architecture,
			Location: EKSImageOwner + "/" + im.Name, State: "available", OwnerID: EKSImageOwner, OwnerAlias: "amazon",
			Public: true, CreationDate: im.Created.Format("2006-01-02T15:04:05.000Z"), ImageType: "machine",
			Description: "EKS-optimized Kubernetes node based on Amazon Linux 2023", RootDeviceType: "ebs",
			RootDeviceName: "/dev/xvda", VirtualizationType: "hvm", Hypervisor: "xen", ENASupport: true,
			PlatformDetails: "Linux/UNIX", UsageOperation: "RunInstances", BootMode: "uefi-preferred", IMDSSupport: "v2.0",
			Devices: []xImageDevice{{DeviceName: "/dev/xvda", EBS: xImageEBS{VolumeSize: 20, VolumeType: "gp3",
				DeleteOnTermination: true}}}})
	}
	return res, nil
}

type describeImagesResponse struct {
	query.EC2Meta
	Images    []xImage `xml:"imagesSet>item"`
	NextToken string   `xml:"nextToken,omitempty"`
}

type xImage struct {
	ImageID            string         `xml:"imageId"`
	Location           string         `xml:"imageLocation"`
	State              string         `xml:"imageState"`
	OwnerID            string         `xml:"imageOwnerId"`
	CreationDate       string         `xml:"creationDate"`
	Public             bool           `xml:"isPublic"`
	Architecture       string         `xml:"architecture"`
	ImageType          string         `xml:"imageType"`
	OwnerAlias         string         `xml:"imageOwnerAlias"`
	Name               string         `xml:"name"`
	Description        string         `xml:"description"`
	RootDeviceType     string         `xml:"rootDeviceType"`
	RootDeviceName     string         `xml:"rootDeviceName"`
	Devices            []xImageDevice `xml:"blockDeviceMapping>item"`
	VirtualizationType string         `xml:"virtualizationType"`
	Hypervisor         string         `xml:"hypervisor"`
	ENASupport         bool           `xml:"enaSupport"`
	PlatformDetails    string         `xml:"platformDetails"`
	UsageOperation     string         `xml:"usageOperation"`
	BootMode           string         `xml:"bootMode"`
	IMDSSupport        string         `xml:"imdsSupport"`
}

type xImageDevice struct {
	DeviceName string    `xml:"deviceName"`
	EBS        xImageEBS `xml:"ebs"`
}

type xImageEBS struct {
	VolumeSize          int32  `xml:"volumeSize"`
	VolumeType          string `xml:"volumeType"`
	DeleteOnTermination bool   `xml:"deleteOnTermination"`
}
