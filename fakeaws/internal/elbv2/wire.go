package elbv2

import "github.com/restartsim/restartsim/fakeaws/internal/state"

type xMatcher struct {
	HttpCode string `xml:"HttpCode,omitempty"`
}

type xTargetGroup struct {
	TargetGroupArn             string    `xml:"TargetGroupArn"`
	TargetGroupName            string    `xml:"TargetGroupName"`
	Protocol                   string    `xml:"Protocol,omitempty"`
	ProtocolVersion            string    `xml:"ProtocolVersion,omitempty"`
	Port                       int32     `xml:"Port,omitempty"`
	VpcId                      string    `xml:"VpcId,omitempty"`
	HealthCheckProtocol        string    `xml:"HealthCheckProtocol,omitempty"`
	HealthCheckPort            string    `xml:"HealthCheckPort,omitempty"`
	HealthCheckEnabled         bool      `xml:"HealthCheckEnabled"`
	HealthCheckIntervalSeconds int32     `xml:"HealthCheckIntervalSeconds"`
	HealthCheckTimeoutSeconds  int32     `xml:"HealthCheckTimeoutSeconds"`
	HealthyThresholdCount      int32     `xml:"HealthyThresholdCount"`
	UnhealthyThresholdCount    int32     `xml:"UnhealthyThresholdCount"`
	HealthCheckPath            string    `xml:"HealthCheckPath,omitempty"`
	Matcher                    *xMatcher `xml:"Matcher,omitempty"`
	LoadBalancerArns           []string  `xml:"LoadBalancerArns>member"`
	TargetType                 string    `xml:"TargetType"`
	IpAddressType              string    `xml:"IpAddressType,omitempty"`
}

func toWire(tg state.TargetGroup) xTargetGroup {
	x := xTargetGroup{
		TargetGroupArn: tg.ARN, TargetGroupName: tg.Name, Protocol: tg.Protocol, ProtocolVersion: tg.ProtocolVersion, Port: tg.Port, VpcId: tg.VPCID,
		HealthCheckProtocol: tg.HealthCheck.Protocol, HealthCheckPort: tg.HealthCheck.Port,
		HealthCheckEnabled: tg.HealthCheck.Enabled, HealthCheckIntervalSeconds: tg.HealthCheck.IntervalSeconds,
		HealthCheckTimeoutSeconds: tg.HealthCheck.TimeoutSeconds, HealthyThresholdCount: tg.HealthCheck.HealthyThreshold,
		UnhealthyThresholdCount: tg.HealthCheck.UnhealthyThreshold, HealthCheckPath: tg.HealthCheck.Path,
		TargetType: tg.TargetType, IpAddressType: tg.IPAddressType, LoadBalancerArns: tg.LoadBalancerARNs,
	}
	if tg.HealthCheck.Matcher != "" {
		x.Matcher = &xMatcher{HttpCode: tg.HealthCheck.Matcher}
	}
	return x
}

type targetGroupsResult struct {
	TargetGroups []xTargetGroup `xml:"TargetGroups>member"`
	NextMarker   string         `xml:"NextMarker,omitempty"`
}

type xTarget struct {
	Id               string `xml:"Id"`
	Port             int32  `xml:"Port,omitempty"`
	AvailabilityZone string `xml:"AvailabilityZone,omitempty"`
}

type xTargetHealth struct {
	State       string `xml:"State"`
	Reason      string `xml:"Reason,omitempty"`
	Description string `xml:"Description,omitempty"`
}

type xTargetHealthDescription struct {
	Target          xTarget       `xml:"Target"`
	HealthCheckPort string        `xml:"HealthCheckPort,omitempty"`
	TargetHealth    xTargetHealth `xml:"TargetHealth"`
}

type targetHealthResult struct {
	TargetHealthDescriptions []xTargetHealthDescription `xml:"TargetHealthDescriptions>member"`
}

type xTag struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type xTagDescription struct {
	ResourceArn string `xml:"ResourceArn"`
	Tags        []xTag `xml:"Tags>member"`
}

type tagsResult struct {
	TagDescriptions []xTagDescription `xml:"TagDescriptions>member"`
}
