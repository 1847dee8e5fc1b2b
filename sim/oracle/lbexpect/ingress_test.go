package lbexpect

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// An Ingress group is one load balancer: members in group.order (then namespace/name), each
// member's paths Exact first, then Prefix longest first, then the rest; priorities count on per
// listener across the members that listen on it; HTTPS rules authenticate first. Ingresses of
// another class or being deleted take no part.
func TestIngressGroupIsOneLoadBalancer(t *testing.T) {
	pfx, exact, impl := networkingv1.PathTypePrefix, networkingv1.PathTypeExact, networkingv1.PathTypeImplementationSpecific
	shop := ingress("shop", "web", map[string]string{
		"alb.ingress.kubernetes.io/group.name":      "g",
		"alb.ingress.kubernetes.io/scheme":          "internet-facing",
		"alb.ingress.kubernetes.io/target-type":     "ip",
		"alb.ingress.kubernetes.io/listen-ports":    `[{"HTTP": 80}, {"HTTPS": 443}]`,
		"alb.ingress.kubernetes.io/certificate-arn": "arn:aws:acm:us-west-2:123456789012:certificate/one",
		"alb.ingress.kubernetes.io/auth-type":       "oidc",
		"alb.ingress.kubernetes.io/auth-idp-oidc":   oidcConfig,
	}, rule("shop.example.com",
		path("/a", pfx, "cart", 80),
		path("/cart/items", pfx, "cart", 80),
		path("/raw", impl, "cart", 80),
		path("/exact", exact, "cart", 80),
	))
	// "a-b" sorts before "a/…" as text, and group.order -1 puts this member first anyway.
	first := ingress("zz", "first", map[string]string{
		"alb.ingress.kubernetes.io/group.name":       "g",
		"alb.ingress.kubernetes.io/group.order":      "-1",
		"alb.ingress.kubernetes.io/target-type":      "ip",
		"alb.ingress.kubernetes.io/healthcheck-path": "/healthz",
	}, rule("", path("/", pfx, "api", 8080)))
	deleting := ingress("shop", "old", map[string]string{"alb.ingress.kubernetes.io/group.name": "g"},
		rule("", path("/old", pfx, "cart", 80)))
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	other := ingress("shop", "nginx", nil, rule("", path("/", pfx, "cart", 80)))
	other.Spec.IngressClassName = ptr.To("nginx")
	legacy := ingress("shop", "legacy", map[string]string{"kubernetes.io/ingress.class": "alb"},
		rule("", path("/legacy", pfx, "nosuch", 80)))
	legacy.Spec.IngressClassName = nil

	o := Objects{ClusterName: "sim", IngressClass: "alb",
		Ingresses: []networkingv1.Ingress{shop, first, deleting, other, legacy},
		Services:  []corev1.Service{service("shop", "cart", tcpPort(80, 8080)), service("zz", "api", tcpPort(8080, 8080))},
		Secrets:   []corev1.Secret{oidcSecret("shop", "oidc", "s3cret\n")},
	}
	lbs, invalid := LoadBalancers(o)
	noInvalid(t, invalid)

	cart := TargetGroup{Resource: "shop/web-cart:80", Protocol: "HTTP", TargetType: "ip", HealthCheckPath: "/"}
	api := TargetGroup{Resource: "zz/first-api:8080", Protocol: "HTTP", TargetType: "ip", HealthCheckPath: "/healthz"}
	auth := Action{Type: ActionAuthenticateOIDC, OIDC: &OIDC{Issuer: "https://idp.example.com",
		AuthorizationEndpoint: "https://idp.example.com/auth", TokenEndpoint: "https://idp.example.com/token",
		UserInfoEndpoint: "https://idp.example.com/userinfo", ClientID: "client-1", ClientSecret: "s3cret",
		Scope: "openid", SessionCookieName: "AWSELBAuthSessionCookie", SessionTimeout: 604800, OnUnauthenticatedRequest: "authenticate"}}
	shopHost := host("shop.example.com")
	assertLBs(t, lbs, []LoadBalancer{
		{Cluster: "sim", Stack: Stack{Kind: IngressStack, Name: "g"}, Type: TypeApplication, Scheme: SchemeInternetFacing,
			Listeners: []Listener{
				{Port: 80, Protocol: "HTTP", DefaultActions: []Action{notFound404}, Rules: []Rule{
					{Priority: 1, Conditions: []Condition{paths("/*")}, Actions: []Action{forward(api)}},
					{Priority: 2, Conditions: []Condition{shopHost, paths("/exact")}, Actions: []Action{forward(cart)}},
					{Priority: 3, Conditions: []Condition{shopHost, paths("/cart/items", "/cart/items/*")}, Actions: []Action{forward(cart)}},
					{Priority: 4, Conditions: []Condition{shopHost, paths("/a", "/a/*")}, Actions: []Action{forward(cart)}},
					{Priority: 5, Conditions: []Condition{shopHost, paths("/raw")}, Actions: []Action{forward(cart)}},
				}},
				{Port: 443, Protocol: "HTTPS", DefaultActions: []Action{notFound404}, Rules: []Rule{
					{Priority: 1, Conditions: []Condition{shopHost, paths("/exact")}, Actions: []Action{auth, forward(cart)}},
					{Priority: 2, Conditions: []Condition{shopHost, paths("/cart/items", "/cart/items/*")}, Actions: []Action{auth, forward(cart)}},
					{Priority: 3, Conditions: []Condition{shopHost, paths("/a", "/a/*")}, Actions: []Action{auth, forward(cart)}},
					{Priority: 4, Conditions: []Condition{shopHost, paths("/raw")}, Actions: []Action{auth, forward(cart)}},
				}},
			}},
		// An Ingress without a group is a load balancer of its own; without annotations it is
		// internal and listens on HTTP 80; a backend Service that does not exist answers 503.
		{Cluster: "sim", Stack: Stack{Kind: IngressStack, Name: "shop/legacy"}, Type: TypeApplication, Scheme: SchemeInternal,
			Listeners: []Listener{{Port: 80, Protocol: "HTTP", DefaultActions: []Action{notFound404}, Rules: []Rule{
				{Priority: 1, Conditions: []Condition{paths("/legacy", "/legacy/*")}, Actions: []Action{fixed503(missingServiceBody)}},
			}}}},
	})
}

// A default backend becomes the listener's default action; use-annotation backends take their
// action from actions.<name>, with ELBv2's spelling of the redirect parts left unset; a missing
// Service or action annotation is a fixed 503, as LBC tolerates both.
func TestBackendsAndAnnotatedActions(t *testing.T) {
	pfx := networkingv1.PathTypePrefix
	ing := ingress("shop", "web", map[string]string{
		"alb.ingress.kubernetes.io/target-type":        "ip",
		"alb.ingress.kubernetes.io/actions.teapot":     `{"type":"fixed-response","fixedResponseConfig":{"statusCode":"418","contentType":"text/plain","messageBody":"tea"}}`,
		"alb.ingress.kubernetes.io/actions.to-https":   `{"type":"redirect","redirectConfig":{"protocol":"HTTPS","port":"443","statusCode":"HTTP_301"}}`,
		"alb.ingress.kubernetes.io/actions.legacy-arn": `{"type":"forward","targetGroupARN":"arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/x/1"}`,
		"alb.ingress.kubernetes.io/actions.split": `{"type":"forward","forwardConfig":{"targetGroups":[` +
			`{"serviceName":"cart","servicePort":"80","weight":80},{"serviceName":"cart","servicePort":"http-alt","weight":20}]}}`,
	})
	ing.Spec.DefaultBackend = ptr.To(backend("cart", 80))
	ing.Spec.Rules = []networkingv1.IngressRule{rule("", path("/gone", pfx, "gone", 80))}
	for _, name := range []string{"teapot", "to-https", "legacy-arn", "split", "unset"} {
		ing.Spec.Rules[0].HTTP.Paths = append(ing.Spec.Rules[0].HTTP.Paths,
			networkingv1.HTTPIngressPath{Path: "/" + name, PathType: &pfx, Backend: annotated(name)})
	}
	cartSvc := service("shop", "cart", tcpPort(80, 8080), corev1.ServicePort{Name: "http-alt", Port: 81, Protocol: corev1.ProtocolTCP})
	cartSvc.Annotations = map[string]string{"alb.ingress.kubernetes.io/healthcheck-path": "/svc-health"} // the Service's wins
	lbs, invalid := LoadBalancers(Objects{ClusterName: "sim", IngressClass: "alb", Ingresses: []networkingv1.Ingress{ing},
		Services: []corev1.Service{cartSvc}})
	noInvalid(t, invalid)

	cart80 := TargetGroup{Resource: "shop/web-cart:80", Protocol: "HTTP", TargetType: "ip", HealthCheckPath: "/svc-health"}
	cartAlt := TargetGroup{Resource: "shop/web-cart:http-alt", Protocol: "HTTP", TargetType: "ip", HealthCheckPath: "/svc-health"}
	assertLBs(t, lbs, []LoadBalancer{{Cluster: "sim", Stack: Stack{Kind: IngressStack, Name: "shop/web"}, Type: TypeApplication,
		Scheme: SchemeInternal, Listeners: []Listener{{Port: 80, Protocol: "HTTP", DefaultActions: []Action{forward(cart80)}, Rules: []Rule{
			{Priority: 1, Conditions: []Condition{paths("/legacy-arn", "/legacy-arn/*")},
				Actions: []Action{forward(TargetGroup{ARN: "arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/x/1"})}},
			{Priority: 2, Conditions: []Condition{paths("/to-https", "/to-https/*")}, Actions: []Action{{Type: ActionRedirect,
				Redirect: &Redirect{Protocol: "HTTPS", Port: "443", Host: "#{host}", Path: "/#{path}", Query: "#{query}", StatusCode: "HTTP_301"}}}},
			{Priority: 3, Conditions: []Condition{paths("/teapot", "/teapot/*")}, Actions: []Action{{Type: ActionFixedResponse,
				FixedResponse: &FixedResponse{StatusCode: "418", ContentType: "text/plain", MessageBody: "tea"}}}},
			{Priority: 4, Conditions: []Condition{paths("/split", "/split/*")}, Actions: []Action{forward(cart80, cartAlt)}},
			{Priority: 5, Conditions: []Condition{paths("/unset", "/unset/*")}, Actions: []Action{fixed503(missingActionBody)}},
			{Priority: 6, Conditions: []Condition{paths("/gone", "/gone/*")}, Actions: []Action{fixed503(missingServiceBody)}},
		}}}}})
}

// The IngressClassParams the class names set every member's scheme; parameters named but missing
// leave the class's groups undeployable, and the Services unaffected.
func TestClassParamsSetTheScheme(t *testing.T) {
	pfx := networkingv1.PathTypePrefix
	o := Objects{ClusterName: "sim", IngressClass: "alb",
		Ingresses: []networkingv1.Ingress{ingress("shop", "web", map[string]string{"alb.ingress.kubernetes.io/scheme": "internal",
			"alb.ingress.kubernetes.io/target-type": "ip"}, rule("", path("/", pfx, "cart", 80)))},
		Services: []corev1.Service{service("shop", "cart", tcpPort(80, 8080)), nlbService("shop", "nlb")},
		IngressClasses: []networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "alb"}, Spec: networkingv1.IngressClassSpec{
			Controller: "ingress.k8s.aws/alb", Parameters: &networkingv1.IngressClassParametersReference{
				APIGroup: ptr.To(v1beta1.GroupVersion.Group), Kind: v1beta1.IngressClassParamsKind, Name: "team"}}}},
	}
	lbs, invalid := LoadBalancers(o)
	if len(invalid) != 1 || invalid[0].Stack.Name != "shop/web" || len(lbs) != 1 || lbs[0].Stack.Kind != ServiceStack {
		t.Fatalf("parameters missing: load balancers %+v, invalid %+v; want shop/web invalid, the Service's NLB expected", lbs, invalid)
	}
	o.ClassParams = []v1beta1.IngressClassParams{{ObjectMeta: metav1.ObjectMeta{Name: "team"},
		Spec: v1beta1.IngressClassParamsSpec{Scheme: ptr.To("internet-facing")}}}
	lbs, invalid = LoadBalancers(o)
	noInvalid(t, invalid)
	if len(lbs) != 2 || lbs[0].Scheme != SchemeInternetFacing {
		t.Fatalf("load balancers %+v, want the group internet-facing as its parameters say", lbs)
	}
	o.IngressClasses[0].Spec.Controller = "example.com/other"
	if lbs, _ = LoadBalancers(o); len(lbs) != 1 || lbs[0].Stack.Kind != ServiceStack {
		t.Fatalf("class of another controller: %+v, want only the Service's NLB", lbs)
	}
}

// Objects LBC cannot build a group from leave that group undeployable, and only that group.
func TestInvalidObjectsSpoilTheirGroupOnly(t *testing.T) {
	pfx := networkingv1.PathTypePrefix
	good := ingress("shop", "good", map[string]string{"alb.ingress.kubernetes.io/target-type": "ip"}, rule("", path("/", pfx, "cart", 80)))
	for name, bad := range map[string]networkingv1.Ingress{
		"conflicting schemes": ingress("shop", "b", map[string]string{"alb.ingress.kubernetes.io/group.name": "g",
			"alb.ingress.kubernetes.io/scheme": "internet-facing"}),
		"conflicting listener protocols": ingress("shop", "b", map[string]string{"alb.ingress.kubernetes.io/group.name": "g",
			"alb.ingress.kubernetes.io/listen-ports": `[{"HTTPS": 80}]`}),
		"unknown scheme": ingress("shop", "b", map[string]string{"alb.ingress.kubernetes.io/group.name": "g",
			"alb.ingress.kubernetes.io/scheme": "public"}),
		"bad group order": ingress("shop", "b", map[string]string{"alb.ingress.kubernetes.io/group.name": "g",
			"alb.ingress.kubernetes.io/group.order": "1001"}),
		"missing service port": ingress("shop", "b", map[string]string{"alb.ingress.kubernetes.io/group.name": "g",
			"alb.ingress.kubernetes.io/target-type": "ip"}, rule("", path("/b", pfx, "cart", 81))),
		"instance targets without node port": ingress("shop", "b", map[string]string{"alb.ingress.kubernetes.io/group.name": "g"},
			rule("", path("/b", pfx, "cart", 80))),
		"missing oidc secret": ingress("shop", "b", map[string]string{"alb.ingress.kubernetes.io/group.name": "g",
			"alb.ingress.kubernetes.io/listen-ports": `[{"HTTPS": 443}]`, "alb.ingress.kubernetes.io/target-type": "ip",
			"alb.ingress.kubernetes.io/auth-type": "oidc", "alb.ingress.kubernetes.io/auth-idp-oidc": oidcConfig},
			rule("", path("/b", pfx, "cart", 80))),
		"bad action annotation": ingress("shop", "b", map[string]string{"alb.ingress.kubernetes.io/group.name": "g",
			"alb.ingress.kubernetes.io/actions.x": `{"type":"fixed-response"}`},
			rule("", networkingv1.HTTPIngressPath{Path: "/x", PathType: &pfx, Backend: annotated("x")})),
	} {
		t.Run(name, func(t *testing.T) {
			member := ingress("shop", "a", map[string]string{"alb.ingress.kubernetes.io/group.name": "g",
				"alb.ingress.kubernetes.io/scheme": "internal", "alb.ingress.kubernetes.io/target-type": "ip"},
				rule("", path("/a", pfx, "cart", 80)))
			lbs, invalid := LoadBalancers(Objects{ClusterName: "sim", IngressClass: "alb",
				Ingresses: []networkingv1.Ingress{good, member, bad},
				Services:  []corev1.Service{service("shop", "cart", tcpPort(80, 8080))}})
			if len(invalid) != 1 || invalid[0].Stack != (Stack{Kind: IngressStack, Name: "g"}) || invalid[0].Err == nil {
				t.Fatalf("invalid %+v, want group g alone", invalid)
			}
			if len(lbs) != 1 || lbs[0].Stack.Name != "shop/good" {
				t.Fatalf("load balancers %+v, want shop/good's", lbs)
			}
		})
	}
}
