package lbexpect

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The test objects are written as a user writes them: annotation keys spelled out, as LBC's
// documentation names them.

func ingress(ns, name string, ann map[string]string, rules ...networkingv1.IngressRule) networkingv1.Ingress {
	return networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("alb"), Rules: rules}}
}

func rule(host string, paths ...networkingv1.HTTPIngressPath) networkingv1.IngressRule {
	return networkingv1.IngressRule{Host: host,
		IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}
}

func path(p string, pt networkingv1.PathType, svc string, port int32) networkingv1.HTTPIngressPath {
	return networkingv1.HTTPIngressPath{Path: p, PathType: &pt, Backend: backend(svc, port)}
}

func backend(svc string, port int32) networkingv1.IngressBackend {
	return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc,
		Port: networkingv1.ServiceBackendPort{Number: port}}}
}

// annotated is a backend whose action is the Ingress's actions.<name> annotation.
func annotated(name string) networkingv1.IngressBackend {
	return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: name,
		Port: networkingv1.ServiceBackendPort{Name: "use-annotation"}}}
}

func service(ns, name string, ports ...corev1.ServicePort) corev1.Service {
	return corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports}}
}

func tcpPort(port, target int32) corev1.ServicePort {
	return corev1.ServicePort{Port: port, TargetPort: intstr.FromInt32(target), Protocol: corev1.ProtocolTCP}
}

func oidcSecret(ns, name, clientSecret string) corev1.Secret {
	return corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data: map[string][]byte{"clientID": []byte("client-1"), "clientSecret": []byte(clientSecret)}}
}

const oidcConfig = `{"issuer":"https://idp.example.com","authorizationEndpoint":"https://idp.example.com/auth",` +
	`"tokenEndpoint":"https://idp.example.com/token","userInfoEndpoint":"https://idp.example.com/userinfo","secretName":"oidc"}`

func paths(values ...string) Condition { return Condition{Field: FieldPathPattern, Values: values} }
func host(h string) Condition          { return Condition{Field: FieldHostHeader, Values: []string{h}} }

func forward(tgs ...TargetGroup) Action { return Action{Type: ActionForward, Forward: tgs} }

var notFound404 = Action{Type: ActionFixedResponse, FixedResponse: &FixedResponse{StatusCode: "404", ContentType: "text/plain"}}

// assertLBs fails unless got is want, showing both as JSON (client secrets are compared, not shown).
func assertLBs(t *testing.T, got, want []LoadBalancer) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		w, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		t.Fatalf("load balancers\n%s\nwant\n%s", g, w)
	}
}

func noInvalid(t *testing.T, invalid []Invalid) {
	t.Helper()
	for _, in := range invalid {
		t.Errorf("%s invalid: %v", in.Stack, in.Err)
	}
}
