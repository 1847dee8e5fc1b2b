package state

import "time"

// Load balancer types, schemes and states, as ELBv2 spells them.
const (
	LBTypeApplication = "application"
	LBTypeNetwork     = "network"

	SchemeInternetFacing = "internet-facing"
	SchemeInternal       = "internal"

	LBStateProvisioning = "provisioning"
	LBStateActive       = "active"
)

// SubnetMapping is one subnet a load balancer has a node in.
type SubnetMapping struct {
	SubnetID           string `json:"subnetId"`
	AvailabilityZone   string `json:"availabilityZone,omitempty"` // filled from the subnet
	AllocationID       string `json:"allocationId,omitempty"`
	PrivateIPv4Address string `json:"privateIpv4Address,omitempty"`
}

// LoadBalancer is an ELBv2 application or network load balancer.
type LoadBalancer struct {
	ARN                   string          `json:"arn"`
	Name                  string          `json:"name"`
	Type                  string          `json:"type"`
	Scheme                string          `json:"scheme"`
	IPAddressType         string          `json:"ipAddressType"`
	VPCID                 string          `json:"vpcId"`
	DNSName               string          `json:"dnsName"`
	CanonicalHostedZoneID string          `json:"canonicalHostedZoneId"`
	Subnets               []SubnetMapping `json:"subnets"`
	SecurityGroupIDs      []string        `json:"securityGroupIds,omitempty"`
	// IPv6SourceNATPrefix is EnablePrefixForIpv6SourceNat "on" (a dualstack network load balancer's choice);
	// AWS describes every other load balancer with "off", its documented default.
	IPv6SourceNATPrefix bool              `json:"ipv6SourceNatPrefix,omitempty"`
	Attributes          map[string]string `json:"attributes,omitempty"` // only the ones set; defaults are implied
	Tags                []Tag             `json:"tags,omitempty"`
	CreatedAt           time.Time         `json:"createdAt"`
	// ActiveAt is when the load balancer leaves "provisioning" (scenario time).
	ActiveAt time.Time `json:"activeAt"`
}

// StateAt is the load balancer's state at scenario time now.
func (lb LoadBalancer) StateAt(now time.Time) string {
	if now.Before(lb.ActiveAt) {
		return LBStateProvisioning
	}
	return LBStateActive
}

// Certificate is a listener's server certificate.
type Certificate struct {
	ARN       string `json:"arn"`
	IsDefault bool   `json:"isDefault,omitempty"`
}

// Listener is a load balancer's listener. Its default actions are those of its default rule.
type Listener struct {
	ARN             string        `json:"arn"`
	LoadBalancerARN string        `json:"loadBalancerArn"`
	Protocol        string        `json:"protocol"`
	Port            int32         `json:"port"`
	SSLPolicy       string        `json:"sslPolicy,omitempty"`
	Certificates    []Certificate `json:"certificates,omitempty"`
	AlpnPolicy      []string      `json:"alpnPolicy,omitempty"`
	// MutualAuthMode is an HTTPS listener's client certificate handling: "" (AWS's default, off) or
	// "passthrough"; fakeaws holds no trust stores, so none verifies.
	MutualAuthMode string            `json:"mutualAuthMode,omitempty"`
	DefaultActions []Action          `json:"defaultActions"`
	DefaultRuleARN string            `json:"defaultRuleArn"`
	Attributes     map[string]string `json:"attributes,omitempty"`
	Tags           []Tag             `json:"tags,omitempty"`
}

// ListenerRule is a listener rule. The default rule (IsDefault) has no priority and no conditions; its actions
// are the listener's default actions.
type ListenerRule struct {
	ARN         string      `json:"arn"`
	ListenerARN string      `json:"listenerArn"`
	Priority    int32       `json:"priority,omitempty"` // 1..50000; 0 for the default rule
	IsDefault   bool        `json:"isDefault,omitempty"`
	Conditions  []Condition `json:"conditions,omitempty"`
	Actions     []Action    `json:"actions"`
	Tags        []Tag       `json:"tags,omitempty"`
}

// Action types.
const (
	ActionForward          = "forward"
	ActionRedirect         = "redirect"
	ActionFixedResponse    = "fixed-response"
	ActionAuthenticateOIDC = "authenticate-oidc"
)

// Action is a listener or rule action. Exactly one of the configs matches Type (TargetGroupARN for a
// forward to one group).
type Action struct {
	Type           string         `json:"type"`
	Order          int32          `json:"order,omitempty"`
	TargetGroupARN string         `json:"targetGroupArn,omitempty"`
	Forward        *ForwardConfig `json:"forward,omitempty"`
	FixedResponse  *FixedResponse `json:"fixedResponse,omitempty"`
	Redirect       *Redirect      `json:"redirect,omitempty"`
	OIDC           *OIDCConfig    `json:"oidc,omitempty"`
}

// WeightedTargetGroup is one target group of a forward action.
type WeightedTargetGroup struct {
	ARN    string `json:"arn"`
	Weight *int32 `json:"weight,omitempty"`
}

// ForwardConfig forwards to one or more weighted target groups.
type ForwardConfig struct {
	TargetGroups       []WeightedTargetGroup `json:"targetGroups"`
	StickinessEnabled  *bool                 `json:"stickinessEnabled,omitempty"`
	StickinessDuration *int32                `json:"stickinessDuration,omitempty"`
}

// FixedResponse answers without a target.
type FixedResponse struct {
	StatusCode  string `json:"statusCode"`
	ContentType string `json:"contentType,omitempty"`
	MessageBody string `json:"messageBody,omitempty"`
}

// Redirect redirects; empty parts were filled with ELBv2's "#{...}" defaults on create.
type Redirect struct {
	Protocol   string `json:"protocol"`
	Port       string `json:"port"`
	Host       string `json:"host"`
	Path       string `json:"path"`
	Query      string `json:"query"`
	StatusCode string `json:"statusCode"`
}

// OIDCConfig authenticates with an OpenID Connect IdP. ClientSecret is kept but never described, like AWS.
type OIDCConfig struct {
	Issuer                   string            `json:"issuer"`
	AuthorizationEndpoint    string            `json:"authorizationEndpoint"`
	TokenEndpoint            string            `json:"tokenEndpoint"`
	UserInfoEndpoint         string            `json:"userInfoEndpoint"`
	ClientID                 string            `json:"clientId"`
	ClientSecret             string            `json:"-"`
	UseExistingClientSecret  bool              `json:"-"` // request only: keep the stored secret
	SessionCookieName        string            `json:"sessionCookieName"`
	Scope                    string            `json:"scope"`
	SessionTimeout           int64             `json:"sessionTimeout"`
	OnUnauthenticatedRequest string            `json:"onUnauthenticatedRequest"`
	ExtraParams              map[string]string `json:"extraParams,omitempty"`
}

// Condition is a rule condition. Values are the field's values (host names, path patterns, header values,
// methods, source CIDRs); HTTPHeaderName names the header of an http-header condition and QueryStrings are a
// query-string condition's key/value pairs.
type Condition struct {
	Field          string        `json:"field"`
	Values         []string      `json:"values,omitempty"`
	HTTPHeaderName string        `json:"httpHeaderName,omitempty"`
	QueryStrings   []QueryString `json:"queryStrings,omitempty"`
}

// QueryString is one key/value pair of a query-string condition (Key may be empty).
type QueryString struct {
	Key   string `json:"key,omitempty"`
	Value string `json:"value"`
}

// Subnet is a VPC subnet.
type Subnet struct {
	ID                  string `json:"id"`
	VPCID               string `json:"vpcId"`
	CIDR                string `json:"cidr"`
	AvailabilityZone    string `json:"availabilityZone"`
	AvailabilityZoneID  string `json:"availabilityZoneId,omitempty"`
	DefaultForAZ        bool   `json:"defaultForAz,omitempty"`
	MapPublicIPOnLaunch bool   `json:"mapPublicIpOnLaunch,omitempty"`
	Tags                []Tag  `json:"tags,omitempty"`
}
