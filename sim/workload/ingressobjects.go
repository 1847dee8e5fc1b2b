package workload

import (
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/internal/certs"
	"github.com/restartsim/restartsim/sim/kubesim"
)

// The IngressClass and load balancer class the Ingress side uses; LBC's annotations and keys are
// lbmodel's.
const (
	IngressClassName = "alb"
	// NLBLoadBalancerClass is spec.loadBalancerClass of the fleet's LoadBalancer Services.
	NLBLoadBalancerClass = "service.k8s.aws/nlb"
)

func (f *FleetPlan) ingressClassObject(run map[string]string) *networkingv1.IngressClass {
	return &networkingv1.IngressClass{
		ObjectMeta: metav1.ObjectMeta{Name: IngressClassName, Labels: withLabels(run, nil)},
		Spec:       networkingv1.IngressClassSpec{Controller: lbmodel.IngressClassController},
	}
}

// ingressAnnotations are the LBC annotations of ing (the model's inputs besides its spec).
func ingressAnnotations(ing *IngressPlan) map[string]string {
	a := map[string]string{
		lbmodel.AnnotationGroupName:   ing.Group,
		lbmodel.AnnotationGroupOrder:  strconv.Itoa(ing.Order),
		lbmodel.AnnotationScheme:      lbmodel.SchemeInternetFacing,
		lbmodel.AnnotationTargetType:  "ip",
		lbmodel.AnnotationListenPorts: `[{"HTTP": 80}]`,
		lbmodel.AnnotationHealthPath:  ing.HealthCheckPath,
	}
	if ing.TLS != nil {
		a[lbmodel.AnnotationListenPorts] = `[{"HTTP": 80}, {"HTTPS": 443}]`
		a[lbmodel.AnnotationCertificateARN] = ing.TLS.CertificateARN
	}
	if o := ing.OIDC; o != nil {
		oidc := lbmodel.OIDCAnnotation{Issuer: o.Issuer, AuthorizationEndpoint: o.Issuer + "/authorize",
			TokenEndpoint: o.Issuer + "/token", UserInfoEndpoint: o.Issuer + "/userinfo", SecretName: o.SecretName}
		cfg, _ := json.Marshal(oidc) //nolint:errchkjson // only strings: cannot fail
		a[lbmodel.AnnotationAuthType] = "oidc"
		a[lbmodel.AnnotationAuthIDPOIDC] = string(cfg)
	}
	return a
}

func (f *FleetPlan) ingressObject(ing *IngressPlan, run map[string]string) *networkingv1.Ingress {
	paths := make([]networkingv1.HTTPIngressPath, len(ing.Paths))
	for i, p := range ing.Paths {
		paths[i] = networkingv1.HTTPIngressPath{
			Path: p.Path, PathType: ptr.To(networkingv1.PathTypePrefix),
			Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
				Name: p.Service, Port: networkingv1.ServiceBackendPort{Number: p.Port}}},
		}
	}
	obj := &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: ing.Name, Namespace: ing.Namespace, Labels: withLabels(run, nil),
			Annotations: ingressAnnotations(ing)},
		Spec: networkingv1.IngressSpec{
			IngressClassName: ptr.To(IngressClassName),
			Rules: []networkingv1.IngressRule{{Host: ing.Host,
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}},
		},
	}
	if ing.TLS != nil {
		obj.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{ing.Host}, SecretName: ing.TLS.SecretName}}
	}
	return obj
}

// backendServiceObject is an Ingress backend (headless, like the ip TGBs' Services) or a LoadBalancer
// Service for an NLB with ip targets.
func (f *FleetPlan) backendServiceObject(s *ServicePlan, run map[string]string) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, Labels: withLabels(run, nil)},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeClusterIP, ClusterIP: corev1.ClusterIPNone,
			Ports: []corev1.ServicePort{{Name: PortName, Protocol: corev1.ProtocolTCP, Port: s.Port,
				TargetPort: intstr.FromInt32(s.TargetPort)}},
			// The pods are IPv4. A headless Service without a selector would default to both
			// families, and LBC builds IPv6 target groups for a Service with an IPv6 family.
			IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicySingleStack), IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
		},
	}
	if f.Spec.ClusterEndpointSlices {
		svc.Spec.Selector = map[string]string{kubesim.ServiceLabel: s.Name}
	}
	if s.LoadBalancer {
		svc.Annotations = map[string]string{lbmodel.AnnotationLBType: "external", lbmodel.AnnotationNLBTargetType: "ip",
			lbmodel.AnnotationServiceScheme: lbmodel.SchemeInternetFacing}
		svc.Spec.Type, svc.Spec.ClusterIP = corev1.ServiceTypeLoadBalancer, ""
		svc.Spec.LoadBalancerClass = ptr.To(NLBLoadBalancerClass)
		// ip targets need no NodePorts, and instance-target TGBs may need every one of them.
		svc.Spec.AllocateLoadBalancerNodePorts = ptr.To(false)
	}
	return svc
}

func (f *FleetPlan) tlsSecretObject(ing *IngressPlan, run map[string]string) (*corev1.Secret, error) {
	crt, key, err := selfSignedCert(ing.TLS, ing.Host)
	if err != nil {
		return nil, fmt.Errorf("certificate of ingress %s/%s: %w", ing.Namespace, ing.Name, err)
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: ing.TLS.SecretName, Namespace: ing.Namespace, Labels: withLabels(run, nil)},
		Type:       corev1.SecretTypeTLS,
		Data:       map[string][]byte{corev1.TLSCertKey: crt, corev1.TLSPrivateKeyKey: key},
	}, nil
}

func (f *FleetPlan) oidcSecretObject(ing *IngressPlan, run map[string]string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: ing.OIDC.SecretName, Namespace: ing.Namespace, Labels: withLabels(run, nil)},
		Type:       corev1.SecretTypeOpaque,
		Data: map[string][]byte{lbmodel.OIDCClientIDKey: []byte(ing.OIDC.ClientID),
			lbmodel.OIDCClientSecretKey: []byte(ing.OIDC.ClientSecret)},
	}
}

// certNotBefore and certValidity bound the fleet's certificates: fixed, so that a seed always gives
// the same bytes, and long, so that no run outlives them.
var certNotBefore = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

const certValidity = 20 * 365 * 24 * time.Hour

// selfSignedCert makes the PEM certificate and PKCS #8 key of t for host. ed25519 signatures are
// deterministic, so the bytes depend on the plan alone.
func selfSignedCert(t *TLSPlan, host string) (crt, key []byte, err error) {
	seed, err := hex.DecodeString(t.KeySeed)
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, nil, fmt.Errorf("key seed: want %d hex-encoded bytes", ed25519.SeedSize)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(t.SerialNumber),
		Subject:      pkix.Name{CommonName: host, Organization: []string{"restartsim"}},
		DNSNames:     []string{host},
		NotBefore:    certNotBefore,
		NotAfter:     certNotBefore.Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	// Any randomness x509 asks for comes from the seed too.
	return certs.Sign(rand.NewChaCha8([32]byte(seed)), tmpl, tmpl, priv, priv)
}
