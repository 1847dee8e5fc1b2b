package ec2

import (
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

type xTag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

func wireTags(ts []state.Tag) []xTag {
	out := make([]xTag, 0, len(ts))
	for _, t := range ts {
		out = append(out, xTag{Key: t.Key, Value: t.Value})
	}
	return out
}

type xGroup struct {
	GroupID   string `xml:"groupId"`
	GroupName string `xml:"groupName,omitempty"`
}

type xIPRange struct {
	CidrIP      string `xml:"cidrIp"`
	Description string `xml:"description,omitempty"`
}

type xIPv6Range struct {
	CidrIPv6    string `xml:"cidrIpv6"`
	Description string `xml:"description,omitempty"`
}

type xPair struct {
	GroupID     string `xml:"groupId"`
	UserID      string `xml:"userId,omitempty"`
	Description string `xml:"description,omitempty"`
}

type xPrefixList struct {
	PrefixListID string `xml:"prefixListId"`
	Description  string `xml:"description,omitempty"`
}

type xPermission struct {
	IPProtocol    string        `xml:"ipProtocol"`
	FromPort      *int32        `xml:"fromPort,omitempty"`
	ToPort        *int32        `xml:"toPort,omitempty"`
	Groups        []xPair       `xml:"groups>item"`
	IPRanges      []xIPRange    `xml:"ipRanges>item"`
	IPv6Ranges    []xIPv6Range  `xml:"ipv6Ranges>item"`
	PrefixListIDs []xPrefixList `xml:"prefixListIds>item"`
}

type xSecurityGroup struct {
	OwnerID             string        `xml:"ownerId"`
	GroupID             string        `xml:"groupId"`
	GroupName           string        `xml:"groupName"`
	GroupDescription    string        `xml:"groupDescription"`
	VpcID               string        `xml:"vpcId"`
	SecurityGroupArn    string        `xml:"securityGroupArn"`
	IPPermissions       []xPermission `xml:"ipPermissions>item"`
	IPPermissionsEgress []xPermission `xml:"ipPermissionsEgress>item"`
	TagSet              []xTag        `xml:"tagSet>item"`
}

type xSecurityGroupRule struct {
	SecurityGroupRuleID  string `xml:"securityGroupRuleId"`
	SecurityGroupRuleArn string `xml:"securityGroupRuleArn"`
	GroupID              string `xml:"groupId"`
	GroupOwnerID         string `xml:"groupOwnerId"`
	IsEgress             bool   `xml:"isEgress"`
	IPProtocol           string `xml:"ipProtocol"`
	FromPort             int32  `xml:"fromPort"`
	ToPort               int32  `xml:"toPort"`
	CidrIPv4             string `xml:"cidrIpv4,omitempty"`
	CidrIPv6             string `xml:"cidrIpv6,omitempty"`
	PrefixListID         string `xml:"prefixListId,omitempty"`
	Referenced           *struct {
		GroupID string `xml:"groupId"`
	} `xml:"referencedGroupInfo,omitempty"`
	Description string `xml:"description,omitempty"`
}

type describeSecurityGroupsResponse struct {
	query.EC2Meta
	SecurityGroupInfo []xSecurityGroup `xml:"securityGroupInfo>item"`
	NextToken         string           `xml:"nextToken,omitempty"`
}

type createSecurityGroupResponse struct {
	query.EC2Meta
	GroupID          string `xml:"groupId"`
	SecurityGroupArn string `xml:"securityGroupArn"`
	TagSet           []xTag `xml:"tagSet>item"`
}

type deleteSecurityGroupResponse struct {
	query.EC2Meta
	Return  bool   `xml:"return"`
	GroupID string `xml:"groupId"`
}

type authorizeResponse struct {
	query.EC2Meta
	Return               bool                 `xml:"return"`
	SecurityGroupRuleSet []xSecurityGroupRule `xml:"securityGroupRuleSet>item"`
}

type revokeResponse struct {
	query.EC2Meta
	Return                 bool          `xml:"return"`
	UnknownIPPermissionSet []xPermission `xml:"unknownIpPermissionSet>item"`
}

type xState struct {
	Code int32  `xml:"code"`
	Name string `xml:"name"`
}

type xPrivateIP struct {
	PrivateIPAddress string `xml:"privateIpAddress"`
	Primary          bool   `xml:"primary"`
}

// xAttachment is a NetworkInterface's attachment (DescribeNetworkInterfaces).
type xAttachment struct {
	AttachmentID        string `xml:"attachmentId"`
	InstanceID          string `xml:"instanceId"`
	InstanceOwnerID     string `xml:"instanceOwnerId"`
	DeviceIndex         int32  `xml:"deviceIndex"`
	NetworkCardIndex    int32  `xml:"networkCardIndex"`
	Status              string `xml:"status"`
	DeleteOnTermination bool   `xml:"deleteOnTermination"`
}

// xInstanceAttachment is an InstanceNetworkInterface's attachment (DescribeInstances): no instance fields.
type xInstanceAttachment struct {
	AttachmentID        string `xml:"attachmentId"`
	DeviceIndex         int32  `xml:"deviceIndex"`
	NetworkCardIndex    int32  `xml:"networkCardIndex"`
	Status              string `xml:"status"`
	DeleteOnTermination bool   `xml:"deleteOnTermination"`
}

type xInstanceENI struct {
	NetworkInterfaceID string              `xml:"networkInterfaceId"`
	SubnetID           string              `xml:"subnetId,omitempty"`
	VpcID              string              `xml:"vpcId"`
	Description        string              `xml:"description"`
	OwnerID            string              `xml:"ownerId"`
	Status             string              `xml:"status"`
	MACAddress         string              `xml:"macAddress"`
	PrivateIPAddress   string              `xml:"privateIpAddress"`
	SourceDestCheck    bool                `xml:"sourceDestCheck"`
	GroupSet           []xGroup            `xml:"groupSet>item"`
	Attachment         xInstanceAttachment `xml:"attachment"`
	PrivateIPs         []xPrivateIP        `xml:"privateIpAddressesSet>item"`
	InterfaceType      string              `xml:"interfaceType"`
}

type xPlacement struct {
	AvailabilityZone string `xml:"availabilityZone,omitempty"`
	Tenancy          string `xml:"tenancy"`
}

type xInstance struct {
	InstanceID            string         `xml:"instanceId"`
	ImageID               string         `xml:"imageId,omitempty"`
	InstanceState         xState         `xml:"instanceState"`
	StateTransitionReason string         `xml:"reason,omitempty"`
	InstanceType          string         `xml:"instanceType,omitempty"`
	LaunchTime            string         `xml:"launchTime,omitempty"`
	Lifecycle             string         `xml:"instanceLifecycle,omitempty"`
	Architecture          string         `xml:"architecture,omitempty"`
	Hypervisor            string         `xml:"hypervisor,omitempty"`
	IAMInstanceProfile    *xProfile      `xml:"iamInstanceProfile,omitempty"`
	StateReason           *xStateReason  `xml:"stateReason,omitempty"`
	PrivateDNSName        string         `xml:"privateDnsName,omitempty"`
	PrivateIPAddress      string         `xml:"privateIpAddress"`
	SubnetID              string         `xml:"subnetId,omitempty"`
	VpcID                 string         `xml:"vpcId"`
	Placement             xPlacement     `xml:"placement"`
	GroupSet              []xGroup       `xml:"groupSet>item"`
	NetworkInterfaceSet   []xInstanceENI `xml:"networkInterfaceSet>item"`
	TagSet                []xTag         `xml:"tagSet>item"`
}

type xProfile struct {
	ARN string `xml:"arn"`
}

type xStateReason struct {
	Code    string `xml:"code"`
	Message string `xml:"message"`
}

type xReservation struct {
	ReservationID string      `xml:"reservationId"`
	OwnerID       string      `xml:"ownerId"`
	GroupSet      struct{}    `xml:"groupSet"`
	InstancesSet  []xInstance `xml:"instancesSet>item"`
}

type describeInstancesResponse struct {
	query.EC2Meta
	ReservationSet []xReservation `xml:"reservationSet>item"`
	NextToken      string         `xml:"nextToken,omitempty"`
}

type xENI struct {
	NetworkInterfaceID string       `xml:"networkInterfaceId"`
	SubnetID           string       `xml:"subnetId,omitempty"`
	VpcID              string       `xml:"vpcId"`
	AvailabilityZone   string       `xml:"availabilityZone,omitempty"`
	Description        string       `xml:"description"`
	OwnerID            string       `xml:"ownerId"`
	RequesterManaged   bool         `xml:"requesterManaged"`
	Status             string       `xml:"status"`
	MACAddress         string       `xml:"macAddress"`
	PrivateIPAddress   string       `xml:"privateIpAddress"`
	SourceDestCheck    bool         `xml:"sourceDestCheck"`
	GroupSet           []xGroup     `xml:"groupSet>item"`
	Attachment         *xAttachment `xml:"attachment,omitempty"`
	PrivateIPs         []xPrivateIP `xml:"privateIpAddressesSet>item"`
	InterfaceType      string       `xml:"interfaceType"`
	TagSet             []xTag       `xml:"tagSet>item"`
}

type describeNetworkInterfacesResponse struct {
	query.EC2Meta
	NetworkInterfaceSet []xENI `xml:"networkInterfaceSet>item"`
	NextToken           string `xml:"nextToken,omitempty"`
}

type xCidrAssociation struct {
	AssociationID string `xml:"associationId"`
	CidrBlock     string `xml:"cidrBlock"`
	State         string `xml:"cidrBlockState>state"`
}

type xVpc struct {
	VpcID                   string             `xml:"vpcId"`
	OwnerID                 string             `xml:"ownerId"`
	State                   string             `xml:"state"`
	CidrBlock               string             `xml:"cidrBlock"`
	CidrBlockAssociationSet []xCidrAssociation `xml:"cidrBlockAssociationSet>item"`
	DhcpOptionsID           string             `xml:"dhcpOptionsId"`
	InstanceTenancy         string             `xml:"instanceTenancy"`
	IsDefault               bool               `xml:"isDefault"`
	TagSet                  []xTag             `xml:"tagSet>item"`
}

type describeVpcsResponse struct {
	query.EC2Meta
	VpcSet    []xVpc `xml:"vpcSet>item"`
	NextToken string `xml:"nextToken,omitempty"`
}
