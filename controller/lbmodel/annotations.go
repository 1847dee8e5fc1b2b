package lbmodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Ingress annotations LBC reads (prefix alb.ingress.kubernetes.io/).
const (
	IngressAnnotationPrefix  = "alb.ingress.kubernetes.io/"
	AnnotationGroupName      = IngressAnnotationPrefix + "group.name"
	AnnotationGroupOrder     = IngressAnnotationPrefix + "group.order"
	AnnotationScheme         = IngressAnnotationPrefix + "scheme"
	AnnotationIPAddressType  = IngressAnnotationPrefix + "ip-address-type"
	AnnotationListenPorts    = IngressAnnotationPrefix + "listen-ports"
	AnnotationTargetType     = IngressAnnotationPrefix + "target-type"
	AnnotationHealthPath     = IngressAnnotationPrefix + "healthcheck-path"
	AnnotationSuccessCodes   = IngressAnnotationPrefix + "success-codes"
	AnnotationBackendProto   = IngressAnnotationPrefix + "backend-protocol"
	AnnotationCertificateARN = IngressAnnotationPrefix + "certificate-arn"
	AnnotationSslPolicy      = IngressAnnotationPrefix + "ssl-policy"
	AnnotationSubnets        = IngressAnnotationPrefix + "subnets"
	AnnotationSecurityGroups = IngressAnnotationPrefix + "security-groups"
	AnnotationTags           = IngressAnnotationPrefix + "tags"
	AnnotationLBAttributes   = IngressAnnotationPrefix + "load-balancer-attributes"
	AnnotationTGAttributes   = IngressAnnotationPrefix + "target-group-attributes"
	AnnotationAuthType       = IngressAnnotationPrefix + "auth-type"
	AnnotationAuthIDPOIDC    = IngressAnnotationPrefix + "auth-idp-oidc"
	AnnotationAuthScope      = IngressAnnotationPrefix + "auth-scope"
	AnnotationAuthOnUnauth   = IngressAnnotationPrefix + "auth-on-unauthenticated-request"
	AnnotationAuthCookie     = IngressAnnotationPrefix + "auth-session-cookie"
	AnnotationAuthTimeout    = IngressAnnotationPrefix + "auth-session-timeout"
	// AnnotationActionPrefix + <service name> holds the action of a backend whose port name is "use-annotation".
	AnnotationActionPrefix = IngressAnnotationPrefix + "actions."
	// UseAnnotation is the backend port name that refers to an actions.<name> annotation.
	UseAnnotation = "use-annotation"
	// IngressClassAnnotation is the legacy class annotation, still honoured by LBC.
	IngressClassAnnotation = "kubernetes.io/ingress.class"
)

// Service annotations LBC reads for an NLB (prefix service.beta.kubernetes.io/).
const (
	ServiceAnnotationPrefix         = "service.beta.kubernetes.io/"
	AnnotationLBType                = ServiceAnnotationPrefix + "aws-load-balancer-type"
	AnnotationNLBTargetType         = ServiceAnnotationPrefix + "aws-load-balancer-nlb-target-type"
	AnnotationServiceScheme         = ServiceAnnotationPrefix + "aws-load-balancer-scheme"
	AnnotationServiceIPAddressType  = ServiceAnnotationPrefix + "aws-load-balancer-ip-address-type"
	AnnotationServiceSubnets        = ServiceAnnotationPrefix + "aws-load-balancer-subnets"
	AnnotationServiceTags           = ServiceAnnotationPrefix + "aws-load-balancer-additional-resource-tags"
	AnnotationServiceLBAttributes   = ServiceAnnotationPrefix + "aws-load-balancer-attributes"
	AnnotationServiceTGAttributes   = ServiceAnnotationPrefix + "aws-load-balancer-target-group-attributes"
	AnnotationServiceHealthPath     = ServiceAnnotationPrefix + "aws-load-balancer-healthcheck-path"
	AnnotationServiceHealthProtocol = ServiceAnnotationPrefix + "aws-load-balancer-healthcheck-protocol"
)

// IngressClassController is spec.controller of an IngressClass whose Ingresses LBC (and the
// reference controller) serves as ALBs.
const IngressClassController = "ingress.k8s.aws/alb"

// The keys of the OIDC client Secret that auth-idp-oidc's secretName names.
const (
	OIDCClientIDKey     = "clientID"
	OIDCClientSecretKey = "clientSecret"
)

// OIDCAnnotation is the JSON of the auth-idp-oidc annotation (LBC's format); SecretName names a Secret in
// the Ingress's namespace with the keys OIDCClientIDKey and OIDCClientSecretKey.
type OIDCAnnotation struct {
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorizationEndpoint"`
	TokenEndpoint         string `json:"tokenEndpoint"`
	UserInfoEndpoint      string `json:"userInfoEndpoint"`
	SecretName            string `json:"secretName"`
}

// listenPort is one entry of listen-ports.
type listenPort struct {
	Protocol string
	Port     int32
}

// parseListenPorts reads listen-ports, e.g. [{"HTTP": 80}, {"HTTPS": 443}].
func parseListenPorts(v string) ([]listenPort, error) {
	var raw []map[string]int32
	if err := json.Unmarshal([]byte(v), &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", AnnotationListenPorts, err)
	}
	var out []listenPort
	for _, m := range raw {
		for proto, port := range m {
			if proto != "HTTP" && proto != "HTTPS" {
				return nil, fmt.Errorf("%s: protocol %q is neither HTTP nor HTTPS", AnnotationListenPorts, proto)
			}
			if port < 1 || port > 65535 {
				return nil, fmt.Errorf("%s: port %d out of range", AnnotationListenPorts, port)
			}
			out = append(out, listenPort{Protocol: proto, Port: port})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no port", AnnotationListenPorts)
	}
	return out, nil
}

// parseKeyValues reads "k1=v1,k2=v2" (tags, attributes); nil for an empty value.
func parseKeyValues(key, v string) (map[string]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	out := map[string]string{}
	for _, kv := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s: %q is not key=value", key, kv)
		}
		out[k] = val
	}
	return out, nil
}

// parseList reads a comma-separated list, dropping empty entries.
func parseList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func oneOf(key, v string, allowed ...string) error {
	if !slices.Contains(allowed, v) {
		return fmt.Errorf("%s: %q is not one of %v", key, v, allowed)
	}
	return nil
}

func parseGroupOrder(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < -1000 || n > 1000 {
		return 0, fmt.Errorf("%s: %q is not an integer in [-1000, 1000]", AnnotationGroupOrder, v)
	}
	return n, nil
}

// subnetDiscoveryTags are the tags LBC discovers subnets by: the role tag of the scheme, any value.
func subnetDiscoveryTags(scheme string) map[string][]string {
	if scheme == SchemeInternetFacing {
		return map[string][]string{"kubernetes.io/role/elb": {"", "1"}}
	}
	return map[string][]string{"kubernetes.io/role/internal-elb": {"", "1"}}
}
