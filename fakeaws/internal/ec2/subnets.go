package ec2

import (
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

func boolString(b bool) string { return strconv.FormatBool(b) }

func subnetAttrs(sn state.Subnet) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "subnet-id":
			return []string{sn.ID}, true
		case "vpc-id":
			return []string{sn.VPCID}, true
		case "availability-zone":
			return []string{sn.AvailabilityZone}, true
		case "availability-zone-id":
			return []string{sn.AvailabilityZoneID}, true
		case "cidr-block", "cidr", "cidrBlock":
			return []string{sn.CIDR}, true
		case "default-for-az", "defaultForAz":
			return []string{boolString(sn.DefaultForAZ)}, true
		case "map-public-ip-on-launch":
			return []string{boolString(sn.MapPublicIPOnLaunch)}, true
		case "state":
			return []string{"available"}, true
		}
		return tagAttrs(sn.Tags, name)
	}
}

func (s *Service) describeSubnets(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids := f.Strings("SubnetId")
	sel := s.st.Subnets()
	if len(ids) > 0 {
		var missing string
		if sel, missing = s.st.SubnetsByID(ids); missing != "" {
			return nil, query.Errorf("InvalidSubnetID.NotFound", "The subnet ID '%s' does not exist", missing)
		}
	}
	var matched []state.Subnet
	for _, sn := range sel {
		ok, err := match(fs, subnetAttrs(sn))
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, sn)
		}
	}
	start, end, next, err := page(f, len(matched), len(ids) > 0)
	if err != nil {
		return nil, err
	}
	res := &describeSubnetsResponse{NextToken: next, SubnetSet: make([]xSubnet, 0, end-start)}
	for _, sn := range matched[start:end] {
		res.SubnetSet = append(res.SubnetSet, xSubnet{
			SubnetID: sn.ID, SubnetArn: s.arn("subnet", sn.ID),
			State: "available", VpcID: sn.VPCID, CidrBlock: sn.CIDR, AvailableIPAddressCount: sn.AvailableIPs(),
			AvailabilityZone: sn.AvailabilityZone, AvailabilityZoneID: sn.AvailabilityZoneID, DefaultForAz: sn.DefaultForAZ,
			MapPublicIPOnLaunch: sn.MapPublicIPOnLaunch, OwnerID: s.st.AccountID(), TagSet: wireTags(sn.Tags),
		})
	}
	return res, nil
}

type xSubnet struct {
	SubnetID                string `xml:"subnetId"`
	SubnetArn               string `xml:"subnetArn"`
	State                   string `xml:"state"`
	VpcID                   string `xml:"vpcId"`
	CidrBlock               string `xml:"cidrBlock"`
	AvailableIPAddressCount int    `xml:"availableIpAddressCount"`
	AvailabilityZone        string `xml:"availabilityZone"`
	AvailabilityZoneID      string `xml:"availabilityZoneId"`
	DefaultForAz            bool   `xml:"defaultForAz"`
	MapPublicIPOnLaunch     bool   `xml:"mapPublicIpOnLaunch"`
	OwnerID                 string `xml:"ownerId"`
	TagSet                  []xTag `xml:"tagSet>item"`
}

type describeSubnetsResponse struct {
	query.EC2Meta
	SubnetSet []xSubnet `xml:"subnetSet>item"`
	NextToken string    `xml:"nextToken,omitempty"`
}
