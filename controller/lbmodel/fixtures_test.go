package lbmodel

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const testCluster = "sim"

func prefix() *networkingv1.PathType { p := networkingv1.PathTypePrefix; return &p }

// testIngress routes host/path to svc:port (by number), with annotations.
func testIngress(ns, name, host, path, svc string, port int32, ann map[string]string) networkingv1.Ingress {
	return networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{
			Host: host,
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: path, PathType: prefix(),
				Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
					Name: svc, Port: networkingv1.ServiceBackendPort{Number: port},
				}},
			}}}},
		}}},
	}
}

func testService(ns, name string, port, targetPort, nodePort int32) corev1.Service {
	return corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{
			Name: "http", Port: port, TargetPort: intstr.FromInt32(targetPort), NodePort: nodePort, Protocol: corev1.ProtocolTCP,
		}}},
	}
}

func oidcSecret(ns, name, secret string) corev1.Secret {
	return corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Data:       map[string][]byte{"clientID": []byte("client-1"), "clientSecret": []byte(secret)},
	}
}

func oidcAnnotations() map[string]string {
	return map[string]string{
		AnnotationListenPorts:    `[{"HTTPS":443}]`,
		AnnotationCertificateARN: "arn:aws:acm:us-west-2:123456789012:certificate/abc",
		AnnotationAuthType:       "oidc",
		AnnotationAuthIDPOIDC: `{"issuer":"https://idp.example.com","authorizationEndpoint":"https://idp.example.com/auth",` +
			`"tokenEndpoint":"https://idp.example.com/token","userInfoEndpoint":"https://idp.example.com/userinfo","secretName":"oidc"}`,
	}
}

// fixture is a one-Ingress group with OIDC on HTTPS, an IP target Service and its auth Secret.
type fixture struct {
	ing    networkingv1.Ingress
	svc    corev1.Service
	secret corev1.Secret
}

func newFixture() *fixture {
	ann := oidcAnnotations()
	ann[AnnotationTargetType] = "ip"
	return &fixture{
		ing:    testIngress("shop", "web", "shop.example.com", "/", "frontend", 80, ann),
		svc:    testService("shop", "frontend", 80, 8080, 30080),
		secret: oidcSecret("shop", "oidc", "s3cret"),
	}
}

func (f *fixture) build(t *testing.T) (Stack, Inputs) {
	t.Helper()
	st, in, err := BuildIngress(IngressInput{
		ClusterName: testCluster,
		Group:       IngressGroup{ID: GroupID(&f.ing), Members: []networkingv1.Ingress{*f.ing.DeepCopy()}},
		Services:    []corev1.Service{*f.svc.DeepCopy()},
		Secrets:     []corev1.Secret{*f.secret.DeepCopy()},
	})
	if err != nil {
		t.Fatal(err)
	}
	return st, in
}

func (f *fixture) checkpoint(t *testing.T, fn func(Stack, Inputs) (string, error)) string {
	t.Helper()
	st, in := f.build(t)
	h, err := fn(st, in)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
