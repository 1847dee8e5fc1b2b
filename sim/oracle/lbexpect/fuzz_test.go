package lbexpect

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// Whatever the annotations and paths say, the expectation is built or the group is invalid with a
// reason: no panic, listeners by ascending port, rule priorities 1, 2, … per listener.
func FuzzLoadBalancers(f *testing.F) {
	f.Add(`[{"HTTP": 80}, {"HTTPS": 443}]`, `{"type":"forward","forwardConfig":{"targetGroups":[{"serviceName":"cart","servicePort":80}]}}`,
		oidcConfig, "5", "/cart/", uint8(1), "oidc", "ip")
	f.Add(`[{"HTTP": 0}]`, `{"type":"redirect","redirectConfig":{"statusCode":"HTTP_302"}}`, `{`, "x", "", uint8(0), "none", "instance")
	f.Add(`[]`, `{"type":"forward","targetGroupName":"t"}`, `{}`, "-1000", "/*", uint8(2), "cognito", "")
	f.Fuzz(func(t *testing.T, listenPorts, action, oidc, order, p string, pathKind uint8, authType, targetType string) {
		kinds := []networkingv1.PathType{networkingv1.PathTypePrefix, networkingv1.PathTypeExact,
			networkingv1.PathTypeImplementationSpecific, "Regex"}
		ing := ingress("shop", "web", map[string]string{
			"alb.ingress.kubernetes.io/group.name":       "g",
			"alb.ingress.kubernetes.io/group.order":      order,
			"alb.ingress.kubernetes.io/listen-ports":     listenPorts,
			"alb.ingress.kubernetes.io/actions.x":        action,
			"alb.ingress.kubernetes.io/auth-type":        authType,
			"alb.ingress.kubernetes.io/auth-idp-oidc":    oidc,
			"alb.ingress.kubernetes.io/target-type":      targetType,
			"alb.ingress.kubernetes.io/certificate-arn":  "arn:aws:acm:us-west-2:123456789012:certificate/one",
			"alb.ingress.kubernetes.io/healthcheck-path": p,
		}, rule("shop.example.com",
			networkingv1.HTTPIngressPath{Path: p, PathType: &kinds[int(pathKind)%len(kinds)], Backend: annotated("x")},
			path(p, networkingv1.PathTypePrefix, "cart", 80)))
		cart := service("shop", "cart", tcpPort(80, 8080))
		cart.Spec.Ports[0].NodePort = 30080
		lbs, invalid := LoadBalancers(Objects{ClusterName: "sim", IngressClass: "alb", Ingresses: []networkingv1.Ingress{ing},
			Services: []corev1.Service{cart}, Secrets: []corev1.Secret{oidcSecret("shop", "oidc", "s")}})
		for _, in := range invalid {
			if in.Err == nil || in.Stack.Name != "g" {
				t.Fatalf("invalid %+v without a reason or of another stack", in)
			}
		}
		if len(lbs)+len(invalid) != 1 {
			t.Fatalf("%d load balancers and %d invalid, want one of them", len(lbs), len(invalid))
		}
		for _, lb := range lbs {
			for i, l := range lb.Listeners {
				if i > 0 && l.Port <= lb.Listeners[i-1].Port {
					t.Fatalf("listeners %+v not by ascending port", lb.Listeners)
				}
				for j, r := range l.Rules {
					if r.Priority != int32(j+1) || len(r.Conditions) == 0 || len(r.Actions) == 0 {
						t.Fatalf("listener %d rule %d: %+v", l.Port, j, r)
					}
				}
			}
		}
	})
}
