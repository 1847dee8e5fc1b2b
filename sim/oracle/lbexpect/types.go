package lbexpect

// StackKind is what a stack was made for; it picks the prefix of the stack's tags.
type StackKind string

const (
	// IngressStack is the stack of an Ingress group.
	IngressStack StackKind = "ingress"
	// ServiceStack is the stack of a Service.
	ServiceStack StackKind = "service"
)

// Tags by which LBC finds a stack's resources (its tracking provider): every resource carries the
// cluster tag, <prefix>/stack with the stack's name and <prefix>/resource with its ID in the stack.
const (
	TagCluster = "elbv2.k8s.aws/cluster"
	// LoadBalancerResource is the resource tag value of a stack's load balancer.
	LoadBalancerResource = "LoadBalancer"
)

// Stack names a stack: an explicit Ingress group's name, namespace/name of an Ingress without a
// group, or namespace/name of a Service.
type Stack struct {
	Kind StackKind `json:"kind"`
	Name string    `json:"name"`
}

func (s Stack) String() string { return string(s.Kind) + "/" + s.Name }

// Tags are the tags of the stack's resource of ID resource in cluster's stacks.
func (s Stack) Tags(cluster, resource string) map[string]string {
	prefix := string(s.Kind) + ".k8s.aws"
	return map[string]string{TagCluster: cluster, prefix + "/stack": s.Name, prefix + "/resource": resource}
}

// Load balancer types and schemes, as ELBv2 spells them.
const (
	TypeApplication      = "application"
	TypeNetwork          = "network"
	SchemeInternal       = "internal"
	SchemeInternetFacing = "internet-facing"
)

// LoadBalancer is one load balancer the objects ask for.
type LoadBalancer struct {
	Cluster string `json:"cluster"`
	Stack   Stack  `json:"stack"`
	Type    string `json:"type"`
	// Scheme is empty when the objects do not decide it: LBC keeps the scheme of a Service's
	// existing load balancer unless an annotation names one.
	Scheme    string     `json:"scheme,omitempty"`
	Listeners []Listener `json:"listeners"` // ascending port
}

// Listener is one port of a load balancer.
type Listener struct {
	Port           int32    `json:"port"`
	Protocol       string   `json:"protocol"`
	DefaultActions []Action `json:"defaultActions"`
	Rules          []Rule   `json:"rules,omitempty"` // priorities 1, 2, …
}

// Condition fields.
const (
	FieldHostHeader  = "host-header"
	FieldPathPattern = "path-pattern"
)

// Rule is a listener rule.
type Rule struct {
	Priority   int32       `json:"priority"`
	Conditions []Condition `json:"conditions"`
	Actions    []Action    `json:"actions"` // in order
}

// Condition matches a request when Field matches one of Values.
type Condition struct {
	Field  string   `json:"field"`
	Values []string `json:"values"`
}

// Action types, as ELBv2 spells them.
const (
	ActionForward          = "forward"
	ActionFixedResponse    = "fixed-response"
	ActionRedirect         = "redirect"
	ActionAuthenticateOIDC = "authenticate-oidc"
)

// Action is a listener or rule action; the field of its Type is set.
type Action struct {
	Type          string         `json:"type"`
	Forward       []TargetGroup  `json:"forward,omitempty"`
	FixedResponse *FixedResponse `json:"fixedResponse,omitempty"`
	Redirect      *Redirect      `json:"redirect,omitempty"`
	OIDC          *OIDC          `json:"oidc,omitempty"`
}

// TargetGroup is a target group a forward action sends to: one of the stack's, known by its
// resource tag, or one named by ARN or by name in an actions annotation.
type TargetGroup struct {
	Resource string `json:"resource,omitempty"`
	ARN      string `json:"arn,omitempty"`
	Name     string `json:"name,omitempty"`
	// Protocol, TargetType and HealthCheckPath are set for the stack's own groups; the path is
	// empty for a TCP health check.
	Protocol        string `json:"protocol,omitempty"`
	TargetType      string `json:"targetType,omitempty"`
	HealthCheckPath string `json:"healthCheckPath,omitempty"`
}

// FixedResponse is a fixed-response action.
type FixedResponse struct {
	StatusCode  string `json:"statusCode"`
	ContentType string `json:"contentType,omitempty"`
	MessageBody string `json:"messageBody,omitempty"`
}

// Redirect is a redirect action, each part a request keeps spelled as ELBv2 stores it (#{host} …).
type Redirect struct {
	Protocol   string `json:"protocol"`
	Port       string `json:"port"`
	Host       string `json:"host"`
	Path       string `json:"path"`
	Query      string `json:"query"`
	StatusCode string `json:"statusCode"`
}

// OIDC is an authenticate-oidc action. ClientSecret is never marshalled.
type OIDC struct {
	Issuer                   string `json:"issuer"`
	AuthorizationEndpoint    string `json:"authorizationEndpoint"`
	TokenEndpoint            string `json:"tokenEndpoint"`
	UserInfoEndpoint         string `json:"userInfoEndpoint"`
	ClientID                 string `json:"clientID"`
	ClientSecret             string `json:"-"`
	Scope                    string `json:"scope"`
	SessionCookieName        string `json:"sessionCookieName"`
	SessionTimeout           int64  `json:"sessionTimeout"`
	OnUnauthenticatedRequest string `json:"onUnauthenticatedRequest"`
}
