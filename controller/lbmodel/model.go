// Package lbmodel builds the ELBv2 model of an Ingress group or of a Service of type LoadBalancer, in the shape
// the AWS Load Balancer Controller (LBC) deploys, and hashes it together with every input it read (Checkpoint).
//
// The builders are pure functions of the Kubernetes objects passed in: they never read a cluster, so a caller
// decides where the objects come from (a cache, live reads) and tests need no API server.
package lbmodel

import "k8s.io/apimachinery/pkg/util/intstr"

// Kind says which object a stack was built from; it picks the tag prefix, as LBC's ingress.k8s.aws/* and
// service.k8s.aws/* tags do.
type Kind string

const (
	// KindIngress is a stack built from an Ingress group.
	KindIngress Kind = "ingress"
	// KindService is a stack built from a Service of type LoadBalancer.
	KindService Kind = "service"
)

// Tag keys LBC puts on every resource of a stack; discovery finds a stack's resources by them.
const (
	TagCluster = "elbv2.k8s.aws/cluster"
	// TagLoadBalancerResource is the resource tag value of the stack's load balancer.
	TagLoadBalancerResource = "LoadBalancer"
)

// StackID names a stack: an explicit group's name, or namespace/name of an Ingress without a group or of a Service.
type StackID struct {
	Kind Kind   `json:"kind"`
	Name string `json:"name"`
}

// TagPrefix is the prefix of the stack and resource tag keys.
func (id StackID) TagPrefix() string {
	if id.Kind == KindService {
		return "service.k8s.aws"
	}
	return "ingress.k8s.aws"
}

// StackTagKey is the tag whose value is the stack's name.
func (id StackID) StackTagKey() string { return id.TagPrefix() + "/stack" }

// ResourceTagKey is the tag whose value is a resource's model ID inside the stack.
func (id StackID) ResourceTagKey() string { return id.TagPrefix() + "/resource" }

// Stack is everything one load balancer needs in AWS plus the TargetGroupBindings that attach its targets.
type Stack struct {
	ID           StackID       `json:"id"`
	LoadBalancer LoadBalancer  `json:"loadBalancer"`
	Listeners    []Listener    `json:"listeners"`
	Rules        []Rule        `json:"rules"`
	TargetGroups []TargetGroup `json:"targetGroups"`
	Bindings     []Binding     `json:"bindings"`
}

// Load balancer types.
const (
	TypeApplication = "application"
	TypeNetwork     = "network"
)

// Schemes.
const (
	SchemeInternal       = "internal"
	SchemeInternetFacing = "internet-facing"
)

// LoadBalancer is the stack's load balancer.
type LoadBalancer struct {
	Name           string            `json:"name"`
	Type           string            `json:"type"`
	Scheme         string            `json:"scheme"`
	IPAddressType  string            `json:"ipAddressType"`
	Subnets        SubnetSelector    `json:"subnets"`
	SecurityGroups []string          `json:"securityGroups,omitempty"`
	Attributes     map[string]string `json:"attributes,omitempty"`
	Tags           map[string]string `json:"tags"`
}

// SubnetSelector picks the load balancer's subnets: by ID when IDs is set, else by tag discovery (tag key →
// accepted values, an empty value meaning "any value"), one subnet per availability zone.
type SubnetSelector struct {
	IDs  []string            `json:"ids,omitempty"`
	Tags map[string][]string `json:"tags,omitempty"`
}

// Listener is one port of the load balancer.
type Listener struct {
	Port          int32    `json:"port"`
	Protocol      string   `json:"protocol"`
	Certificates  []string `json:"certificates,omitempty"`
	SslPolicy     string   `json:"sslPolicy,omitempty"`
	DefaultAction Action   `json:"defaultAction"`
}

// Condition fields.
const (
	FieldHostHeader  = "host-header"
	FieldPathPattern = "path-pattern"
)

// Condition is one rule condition: the request matches when Field matches any of Values.
type Condition struct {
	Field  string   `json:"field"`
	Values []string `json:"values"`
}

// Rule is a listener rule; Actions run in order (an authenticate action first, then the final one).
type Rule struct {
	ListenerPort int32       `json:"listenerPort"`
	Priority     int32       `json:"priority"`
	Conditions   []Condition `json:"conditions"`
	Actions      []Action    `json:"actions"`
}

// Action types.
const (
	ActionForward          = "forward"
	ActionFixedResponse    = "fixed-response"
	ActionRedirect         = "redirect"
	ActionAuthenticateOIDC = "authenticate-oidc"
)

// Action is one listener or rule action; exactly the field of its Type is set.
type Action struct {
	Type string `json:"type"`
	// TargetGroupID is the model ID of the forward target (TargetGroup.ID), resolved to an ARN at deploy time.
	TargetGroupID    string            `json:"targetGroupID,omitempty"`
	FixedResponse    *FixedResponse    `json:"fixedResponse,omitempty"`
	Redirect         *Redirect         `json:"redirect,omitempty"`
	AuthenticateOIDC *AuthenticateOIDC `json:"authenticateOIDC,omitempty"`
}

// FixedResponse is a fixed-response action.
type FixedResponse struct {
	StatusCode  string `json:"statusCode"`
	ContentType string `json:"contentType,omitempty"`
	MessageBody string `json:"messageBody,omitempty"`
}

// Redirect is a redirect action; empty fields keep the request's value (#{protocol} etc. in AWS terms).
type Redirect struct {
	StatusCode string `json:"statusCode"`
	Protocol   string `json:"protocol,omitempty"`
	Port       string `json:"port,omitempty"`
	Host       string `json:"host,omitempty"`
	Path       string `json:"path,omitempty"`
	Query      string `json:"query,omitempty"`
}

// AuthenticateOIDC is an authenticate-oidc action. ClientSecret is never marshalled, like in LBC's model, so
// that a model dump never holds it; Checkpoint covers it through the Secret's digest instead.
type AuthenticateOIDC struct {
	Issuer                   string `json:"issuer"`
	AuthorizationEndpoint    string `json:"authorizationEndpoint"`
	TokenEndpoint            string `json:"tokenEndpoint"`
	UserInfoEndpoint         string `json:"userInfoEndpoint"`
	ClientID                 string `json:"clientID"`
	ClientSecret             string `json:"-"`
	Scope                    string `json:"scope,omitempty"`
	SessionCookieName        string `json:"sessionCookieName,omitempty"`
	SessionTimeout           int64  `json:"sessionTimeout,omitempty"`
	OnUnauthenticatedRequest string `json:"onUnauthenticatedRequest,omitempty"`
}

// TargetGroup is one target group of the stack.
type TargetGroup struct {
	// ID is the model ID, unique in the stack and stored in the resource tag (LBC: ns/ingress-service:port).
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Protocol    string            `json:"protocol"`
	Port        int32             `json:"port"`
	TargetType  string            `json:"targetType"`
	HealthCheck HealthCheck       `json:"healthCheck"`
	Attributes  map[string]string `json:"attributes,omitempty"`
	Tags        map[string]string `json:"tags"`
}

// HealthCheck is a target group's health check.
type HealthCheck struct {
	Protocol           string `json:"protocol"`
	Port               string `json:"port"`
	Path               string `json:"path,omitempty"`
	Matcher            string `json:"matcher,omitempty"`
	IntervalSeconds    int32  `json:"intervalSeconds"`
	TimeoutSeconds     int32  `json:"timeoutSeconds"`
	HealthyThreshold   int32  `json:"healthyThreshold"`
	UnhealthyThreshold int32  `json:"unhealthyThreshold"`
}

// Binding is a TargetGroupBinding to create once the target group exists.
type Binding struct {
	Name          string             `json:"name"`
	Namespace     string             `json:"namespace"`
	ServiceName   string             `json:"serviceName"`
	ServicePort   intstr.IntOrString `json:"servicePort"`
	TargetGroupID string             `json:"targetGroupID"`
	TargetType    string             `json:"targetType"`
}
