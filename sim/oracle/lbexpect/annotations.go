package lbexpect

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
)

// The annotations LBC reads, as its documentation names them.
const (
	albPrefix                 = "alb.ingress.kubernetes.io/"
	annGroupName              = albPrefix + "group.name"
	annGroupOrder             = albPrefix + "group.order"
	annScheme                 = albPrefix + "scheme"
	annListenPorts            = albPrefix + "listen-ports"
	annCertificateARN         = albPrefix + "certificate-arn"
	annTargetType             = albPrefix + "target-type"
	annBackendProtocol        = albPrefix + "backend-protocol"
	annBackendProtocolVersion = albPrefix + "backend-protocol-version"
	annHealthCheckPath        = albPrefix + "healthcheck-path"
	annAuthType               = albPrefix + "auth-type"
	annAuthIDPOIDC            = albPrefix + "auth-idp-oidc"
	annAuthScope              = albPrefix + "auth-scope"
	annAuthSessionCookie      = albPrefix + "auth-session-cookie"
	annAuthSessionTimeout     = albPrefix + "auth-session-timeout"
	annAuthOnUnauthenticated  = albPrefix + "auth-on-unauthenticated-request"
	// annActionPrefix + a backend's service name holds the action of a backend whose port name
	// is "use-annotation".
	annActionPrefix = albPrefix + "actions."
	useAnnotation   = "use-annotation"
	// legacyClassAnnotation names the class of an Ingress without spec.ingressClassName.
	legacyClassAnnotation = "kubernetes.io/ingress.class"

	nlbPrefix               = "service.beta.kubernetes.io/"
	annLBType               = nlbPrefix + "aws-load-balancer-type"
	annNLBTargetType        = nlbPrefix + "aws-load-balancer-nlb-target-type"
	annNLBScheme            = nlbPrefix + "aws-load-balancer-scheme"
	annNLBInternal          = nlbPrefix + "aws-load-balancer-internal" // the scheme's older, boolean spelling
	annNLBHealthCheckProto  = nlbPrefix + "aws-load-balancer-healthcheck-protocol"
	annNLBHealthCheckPath   = nlbPrefix + "aws-load-balancer-healthcheck-path"
	nlbLoadBalancerClass    = "service.k8s.aws/nlb"
	ingressClassController  = "ingress.k8s.aws/alb"
	oidcSecretClientID      = "clientID"
	oidcSecretClientIDOld   = "clientId" // the spelling of LBC's predecessor, still read
	oidcSecretClientSecret  = "clientSecret"
	targetTypeInstance      = "instance"
	targetTypeIP            = "ip"
	defaultHealthCheckPath  = "/"
	grpcHealthCheckPath     = "/AWS.ALB/healthcheck"
	localTrafficHealthCheck = "/healthz" // kube-proxy's health check of an instance NLB with local traffic policy
)

// listenPorts reads listen-ports, e.g. [{"HTTP": 80}, {"HTTPS": 443}]: port → protocol, a later
// entry for the same port winning.
func listenPorts(v string) (map[int32]string, error) {
	var entries []map[string]int32
	if err := json.Unmarshal([]byte(v), &entries); err != nil {
		return nil, fmt.Errorf("%s: %w", annListenPorts, err)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no port", annListenPorts)
	}
	out := map[int32]string{}
	for _, e := range entries {
		for protocol, port := range e {
			if port < 1 || port > 65535 {
				return nil, fmt.Errorf("%s: port %d is not in [1, 65535]", annListenPorts, port)
			}
			if protocol != "HTTP" && protocol != "HTTPS" {
				return nil, fmt.Errorf("%s: protocol %q is neither HTTP nor HTTPS", annListenPorts, protocol)
			}
			out[port] = protocol
		}
	}
	return out, nil
}

// stringList reads a comma-separated list, dropping empty entries.
func stringList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// groupOrder reads group.order: an integer in [-1000, 1000], 0 when unset.
func groupOrder(annotations map[string]string) (int32, error) {
	v, ok := annotations[annGroupOrder]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || n < -1000 || n > 1000 {
		return 0, fmt.Errorf("%s: %q is not an integer in [-1000, 1000]", annGroupOrder, v)
	}
	return int32(n), nil
}

// lookup is the value of key in the first of maps that has it: a Service's annotations before its
// Ingress's, as LBC merges them.
func lookup(key string, maps ...map[string]string) (string, bool) {
	for _, m := range maps {
		if v, ok := m[key]; ok {
			return v, true
		}
	}
	return "", false
}

// valueOr is lookup's value, or def when no map has key.
func valueOr(def, key string, maps ...map[string]string) string {
	if v, ok := lookup(key, maps...); ok {
		return v
	}
	return def
}

// annotationAction is the JSON of an actions.<service> annotation.
type annotationAction struct {
	Type string `json:"type"`
	// TargetGroupARN and TargetGroupName are the short form of a forward to one group.
	TargetGroupARN  *string `json:"targetGroupARN"`
	TargetGroupName *string `json:"targetGroupName"`
	ForwardConfig   *struct {
		TargetGroups []annotationTargetGroup `json:"targetGroups"`
	} `json:"forwardConfig"`
	FixedResponseConfig *struct {
		ContentType *string `json:"contentType"`
		MessageBody *string `json:"messageBody"`
		StatusCode  string  `json:"statusCode"`
	} `json:"fixedResponseConfig"`
	RedirectConfig *struct {
		Host       *string `json:"host"`
		Path       *string `json:"path"`
		Port       *string `json:"port"`
		Protocol   *string `json:"protocol"`
		Query      *string `json:"query"`
		StatusCode string  `json:"statusCode"`
	} `json:"redirectConfig"`
}

// annotationTargetGroup is one target of a forwardConfig: a group by ARN or by name, or a Service port.
type annotationTargetGroup struct {
	TargetGroupARN  *string             `json:"targetGroupARN"`
	TargetGroupName *string             `json:"targetGroupName"`
	ServiceName     *string             `json:"serviceName"`
	ServicePort     *intstr.IntOrString `json:"servicePort"`
	Weight          *int32              `json:"weight"`
}

// oidcAnnotation is the JSON of auth-idp-oidc; SecretName names a Secret in the Ingress's namespace.
type oidcAnnotation struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorizationEndpoint"`
	TokenEndpoint         string `json:"tokenEndpoint"`
	UserInfoEndpoint      string `json:"userInfoEndpoint"`
	SecretName            string `json:"secretName"`
}
