package elbv2

import (
	"slices"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// Wire shapes of the load balancer side, as the Query protocol writes them (lists as <member>, maps as <entry>).

type xAZ struct {
	ZoneName string `xml:"ZoneName"`
	SubnetId string `xml:"SubnetId"`
}

type xLBState struct {
	Code string `xml:"Code"`
}

type xLoadBalancer struct {
	LoadBalancerArn       string   `xml:"LoadBalancerArn"`
	DNSName               string   `xml:"DNSName"`
	CanonicalHostedZoneId string   `xml:"CanonicalHostedZoneId"`
	CreatedTime           string   `xml:"CreatedTime"`
	LoadBalancerName      string   `xml:"LoadBalancerName"`
	Scheme                string   `xml:"Scheme"`
	VpcId                 string   `xml:"VpcId"`
	State                 xLBState `xml:"State"`
	Type                  string   `xml:"Type"`
	AvailabilityZones     []xAZ    `xml:"AvailabilityZones>member"`
	SecurityGroups        []string `xml:"SecurityGroups>member,omitempty"`
	IpAddressType         string   `xml:"IpAddressType"`
	// EnablePrefixForIpv6SourceNat is on every load balancer AWS describes, "off" unless set (clients that
	// late-initialise it, as ACK does, wait for it forever otherwise).
	EnablePrefixForIpv6SourceNat string `xml:"EnablePrefixForIpv6SourceNat"`
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func lbToWire(lb state.LoadBalancer, now time.Time) xLoadBalancer {
	x := xLoadBalancer{
		LoadBalancerArn: lb.ARN, DNSName: lb.DNSName, CanonicalHostedZoneId: lb.CanonicalHostedZoneID,
		CreatedTime: lb.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z"), LoadBalancerName: lb.Name, Scheme: lb.Scheme,
		VpcId: lb.VPCID, State: xLBState{Code: lb.StateAt(now)}, Type: lb.Type, SecurityGroups: lb.SecurityGroupIDs,
		IpAddressType: lb.IPAddressType, EnablePrefixForIpv6SourceNat: onOff(lb.IPv6SourceNATPrefix),
	}
	for _, m := range lb.Subnets {
		x.AvailabilityZones = append(x.AvailabilityZones, xAZ{ZoneName: m.AvailabilityZone, SubnetId: m.SubnetID})
	}
	return x
}

type loadBalancersResult struct {
	LoadBalancers []xLoadBalancer `xml:"LoadBalancers>member"`
	NextMarker    string          `xml:"NextMarker,omitempty"`
}

type xWeightedTG struct {
	TargetGroupArn string `xml:"TargetGroupArn"`
	Weight         *int32 `xml:"Weight,omitempty"`
}

type xStickiness struct {
	Enabled         bool   `xml:"Enabled"`
	DurationSeconds *int32 `xml:"DurationSeconds,omitempty"`
}

type xForward struct {
	TargetGroups []xWeightedTG `xml:"TargetGroups>member"`
	Stickiness   xStickiness   `xml:"TargetGroupStickinessConfig"`
}

type xEntry struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

// xOIDC has no ClientSecret: AWS never returns it.
type xOIDC struct {
	Issuer                           string   `xml:"Issuer"`
	AuthorizationEndpoint            string   `xml:"AuthorizationEndpoint"`
	TokenEndpoint                    string   `xml:"TokenEndpoint"`
	UserInfoEndpoint                 string   `xml:"UserInfoEndpoint"`
	ClientId                         string   `xml:"ClientId"`
	SessionCookieName                string   `xml:"SessionCookieName"`
	Scope                            string   `xml:"Scope"`
	SessionTimeout                   int64    `xml:"SessionTimeout"`
	OnUnauthenticatedRequest         string   `xml:"OnUnauthenticatedRequest"`
	AuthenticationRequestExtraParams []xEntry `xml:"AuthenticationRequestExtraParams>entry,omitempty"`
}

// xFixedResponse leaves out what the request left out, so a client reads back nil, not "".
type xFixedResponse struct {
	StatusCode  string `xml:"StatusCode"`
	ContentType string `xml:"ContentType,omitempty"`
	MessageBody string `xml:"MessageBody,omitempty"`
}

type xRedirect struct {
	Protocol   string `xml:"Protocol"`
	Port       string `xml:"Port"`
	Host       string `xml:"Host"`
	Path       string `xml:"Path"`
	Query      string `xml:"Query"`
	StatusCode string `xml:"StatusCode"`
}

type xAction struct {
	Type                   string          `xml:"Type"`
	Order                  int32           `xml:"Order"`
	TargetGroupArn         string          `xml:"TargetGroupArn,omitempty"`
	ForwardConfig          *xForward       `xml:"ForwardConfig,omitempty"`
	FixedResponseConfig    *xFixedResponse `xml:"FixedResponseConfig,omitempty"`
	RedirectConfig         *xRedirect      `xml:"RedirectConfig,omitempty"`
	AuthenticateOidcConfig *xOIDC          `xml:"AuthenticateOidcConfig,omitempty"`
}

// actionsToWire writes actions as AWS describes them: a forward always carries a ForwardConfig (weight 1 for
// a single group, whose ARN also stays in TargetGroupArn).
func actionsToWire(as []state.Action) []xAction {
	out := make([]xAction, 0, len(as))
	for _, a := range as {
		x := xAction{Type: a.Type, Order: a.Order}
		if fr := a.FixedResponse; fr != nil {
			x.FixedResponseConfig = &xFixedResponse{StatusCode: fr.StatusCode, ContentType: fr.ContentType, MessageBody: fr.MessageBody}
		}
		if r := a.Redirect; r != nil {
			x.RedirectConfig = &xRedirect{Protocol: r.Protocol, Port: r.Port, Host: r.Host, Path: r.Path, Query: r.Query, StatusCode: r.StatusCode}
		}
		if a.Type == state.ActionForward {
			x.TargetGroupArn = a.TargetGroupARN
			x.ForwardConfig = forwardToWire(a)
		}
		if o := a.OIDC; o != nil {
			x.AuthenticateOidcConfig = &xOIDC{Issuer: o.Issuer, AuthorizationEndpoint: o.AuthorizationEndpoint, TokenEndpoint: o.TokenEndpoint,
				UserInfoEndpoint: o.UserInfoEndpoint, ClientId: o.ClientID, SessionCookieName: o.SessionCookieName, Scope: o.Scope,
				SessionTimeout: o.SessionTimeout, OnUnauthenticatedRequest: o.OnUnauthenticatedRequest}
			keys := make([]string, 0, len(o.ExtraParams))
			for k := range o.ExtraParams {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				x.AuthenticateOidcConfig.AuthenticationRequestExtraParams = append(x.AuthenticateOidcConfig.AuthenticationRequestExtraParams, xEntry{k, o.ExtraParams[k]})
			}
		}
		out = append(out, x)
	}
	return out
}

func forwardToWire(a state.Action) *xForward {
	one := int32(1)
	if a.Forward == nil {
		return &xForward{TargetGroups: []xWeightedTG{{TargetGroupArn: a.TargetGroupARN, Weight: &one}}}
	}
	f := &xForward{}
	for _, tg := range a.Forward.TargetGroups {
		w := tg.Weight
		if w == nil {
			w = &one
		}
		f.TargetGroups = append(f.TargetGroups, xWeightedTG{TargetGroupArn: tg.ARN, Weight: w})
	}
	if a.Forward.StickinessEnabled != nil {
		f.Stickiness.Enabled = *a.Forward.StickinessEnabled
	}
	f.Stickiness.DurationSeconds = a.Forward.StickinessDuration
	return f
}

type xCertificate struct {
	CertificateArn string `xml:"CertificateArn"`
	IsDefault      bool   `xml:"IsDefault,omitempty"`
}

type xListener struct {
	ListenerArn     string         `xml:"ListenerArn"`
	LoadBalancerArn string         `xml:"LoadBalancerArn"`
	Port            int32          `xml:"Port"`
	Protocol        string         `xml:"Protocol"`
	Certificates    []xCertificate `xml:"Certificates>member,omitempty"`
	SslPolicy       string         `xml:"SslPolicy,omitempty"`
	DefaultActions  []xAction      `xml:"DefaultActions>member"`
	AlpnPolicy      []string       `xml:"AlpnPolicy>member,omitempty"`
	// MutualAuthentication is on every HTTPS listener AWS describes, Mode "off" unless set.
	MutualAuthentication *xMutualAuth `xml:"MutualAuthentication,omitempty"`
}

type xMutualAuth struct {
	Mode string `xml:"Mode"`
}

func listenerToWire(l state.Listener) xListener {
	x := xListener{ListenerArn: l.ARN, LoadBalancerArn: l.LoadBalancerARN, Port: l.Port, Protocol: l.Protocol,
		SslPolicy: l.SSLPolicy, DefaultActions: actionsToWire(l.DefaultActions), AlpnPolicy: l.AlpnPolicy}
	if l.Protocol == "HTTPS" {
		x.MutualAuthentication = &xMutualAuth{Mode: "off"}
		if l.MutualAuthMode != "" {
			x.MutualAuthentication.Mode = l.MutualAuthMode
		}
	}
	for _, c := range l.Certificates {
		if c.IsDefault { // DescribeListeners shows the default certificate only, without IsDefault
			x.Certificates = append(x.Certificates, xCertificate{CertificateArn: c.ARN})
		}
	}
	return x
}

type certificatesResult struct {
	Certificates []xCertificate `xml:"Certificates>member"`
	NextMarker   string         `xml:"NextMarker,omitempty"`
}

func certificatesToWire(cs []state.Certificate) []xCertificate {
	out := make([]xCertificate, 0, len(cs))
	for _, c := range cs {
		out = append(out, xCertificate{CertificateArn: c.ARN, IsDefault: c.IsDefault})
	}
	return out
}

type setSubnetsResult struct {
	AvailabilityZones            []xAZ  `xml:"AvailabilityZones>member"`
	IpAddressType                string `xml:"IpAddressType"`
	EnablePrefixForIpv6SourceNat string `xml:"EnablePrefixForIpv6SourceNat"`
}

type setSecurityGroupsResult struct {
	SecurityGroupIds []string `xml:"SecurityGroupIds>member"`
}

type setIPAddressTypeResult struct {
	IpAddressType string `xml:"IpAddressType"`
}

type listenersResult struct {
	Listeners  []xListener `xml:"Listeners>member"`
	NextMarker string      `xml:"NextMarker,omitempty"`
}

type xValues struct {
	Values []string `xml:"Values>member"`
}

type xHeader struct {
	HttpHeaderName string   `xml:"HttpHeaderName"`
	Values         []string `xml:"Values>member"`
}

type xQueryString struct {
	Key   string `xml:"Key,omitempty"`
	Value string `xml:"Value"`
}

type xQueryStrings struct {
	Values []xQueryString `xml:"Values>member"`
}

type xCondition struct {
	Field                   string         `xml:"Field"`
	Values                  []string       `xml:"Values>member,omitempty"`
	HostHeaderConfig        *xValues       `xml:"HostHeaderConfig,omitempty"`
	PathPatternConfig       *xValues       `xml:"PathPatternConfig,omitempty"`
	HttpHeaderConfig        *xHeader       `xml:"HttpHeaderConfig,omitempty"`
	HttpRequestMethodConfig *xValues       `xml:"HttpRequestMethodConfig,omitempty"`
	QueryStringConfig       *xQueryStrings `xml:"QueryStringConfig,omitempty"`
	SourceIpConfig          *xValues       `xml:"SourceIpConfig,omitempty"`
}

// conditionToWire writes host and path values both in Values and in the field's config, as AWS does.
func conditionToWire(c state.Condition) xCondition {
	x := xCondition{Field: c.Field}
	v := &xValues{Values: c.Values}
	switch c.Field {
	case "host-header":
		x.Values, x.HostHeaderConfig = c.Values, v
	case "path-pattern":
		x.Values, x.PathPatternConfig = c.Values, v
	case "http-header":
		x.HttpHeaderConfig = &xHeader{HttpHeaderName: c.HTTPHeaderName, Values: c.Values}
	case "http-request-method":
		x.HttpRequestMethodConfig = v
	case "query-string":
		x.QueryStringConfig = &xQueryStrings{}
		for _, q := range c.QueryStrings {
			x.QueryStringConfig.Values = append(x.QueryStringConfig.Values, xQueryString{Key: q.Key, Value: q.Value})
		}
	case "source-ip":
		x.SourceIpConfig = v
	}
	return x
}

type xRule struct {
	RuleArn    string       `xml:"RuleArn"`
	Priority   string       `xml:"Priority"`
	Conditions []xCondition `xml:"Conditions>member"`
	Actions    []xAction    `xml:"Actions>member"`
	IsDefault  bool         `xml:"IsDefault"`
}

func ruleToWire(r state.ListenerRule) xRule {
	x := xRule{RuleArn: r.ARN, Priority: strconv.Itoa(int(r.Priority)), Actions: actionsToWire(r.Actions), IsDefault: r.IsDefault,
		Conditions: make([]xCondition, 0, len(r.Conditions))}
	if r.IsDefault {
		x.Priority = "default"
	}
	for _, c := range r.Conditions {
		x.Conditions = append(x.Conditions, conditionToWire(c))
	}
	return x
}

type rulesResult struct {
	Rules      []xRule `xml:"Rules>member"`
	NextMarker string  `xml:"NextMarker,omitempty"`
}

type xAttribute struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

type attributesResult struct {
	Attributes []xAttribute `xml:"Attributes>member"`
}
