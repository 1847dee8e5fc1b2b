package workload_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/sim/workload"
)

func ingressFleetSpec() workload.Spec {
	return workload.Spec{TGBs: 2, Namespaces: 2, PodsPerService: 2, Nodes: 2,
		Ingresses: workload.IngressSpec{Count: 7, GroupSize: 3, TLSShare: 0.5, OIDCShare: 0.3, ServicesPerIngress: 2, LoadBalancerServices: 2}}
}

// TestCreateIngressFleet: the Ingress side is created as planned, with every reference resolvable and
// no TargetGroupBinding or target group of its own.
func TestCreateIngressFleet(t *testing.T) {
	k8s := cluster(t).Client
	tf := createFleet(t, ingressFleetSpec(), 11)
	ctx := context.Background()
	sel := client.MatchingLabels(tf.run)

	var class networkingv1.IngressClass
	if err := k8s.Get(ctx, types.NamespacedName{Name: workload.IngressClassName}, &class); err != nil || class.Spec.Controller != lbmodel.IngressClassController {
		t.Fatalf("ingressclass: %v %+v", err, class.Spec)
	}
	var ings networkingv1.IngressList
	var tgbs v1beta1.TargetGroupBindingList
	var slices discoveryv1.EndpointSliceList
	for _, l := range []client.ObjectList{&ings, &tgbs, &slices} {
		if err := k8s.List(ctx, l, sel); err != nil {
			t.Fatal(err)
		}
	}
	if len(ings.Items) != 7 || len(tgbs.Items) != 2 || len(slices.Items) != 2+14+2 {
		t.Fatalf("%d ingresses, %d TGBs, %d slices; want 7, 2, 18", len(ings.Items), len(tgbs.Items), len(slices.Items))
	}
	if tgs := tf.aws.srv.TargetGroups(); len(tgs) != 2 {
		t.Fatalf("target groups beyond the TGBs': %d", len(tgs))
	}
	// TGB side: 2 namespaces, 2 nodes × 2, 2 TGBs × 3, 4 pods × 2; Ingress side: the IngressClass,
	// 16 Services × (Service, slice), 32 pods × 2, 7 Ingresses, 4 TLS and 2 OIDC Secrets.
	if want := (2 + 4 + 6 + 8) + (1 + 32 + 64 + 7 + 4 + 2); tf.stats.Writes != want {
		t.Errorf("%d writes, want %d", tf.stats.Writes, want)
	}
	// Every step is counted against the progress total: the last line reads total/total.
	if lines := strings.Split(strings.TrimSpace(tf.progress.String()), "\n"); !regexp.MustCompile(`: (\d+)/(\d+) steps`).MatchString(lines[len(lines)-1]) ||
		!sameNumbers(regexp.MustCompile(`: (\d+)/(\d+) steps`).FindStringSubmatch(lines[len(lines)-1])) {
		t.Errorf("last progress line %q", lines[len(lines)-1])
	}
	for i := range ings.Items {
		checkIngress(t, k8s, &ings.Items[i], tf.FleetPlan)
	}
	// The HTTPS listeners' certificates exist, issued, in the account's ACM.
	issued := map[string]string{}
	for _, c := range tf.aws.srv.Certificates() {
		if c.Status == "ISSUED" {
			issued[c.ARN] = c.Domain
		}
	}
	tls := 0
	for _, in := range tf.Ingresses() {
		if in.CertificateARN != "" {
			tls++
			if issued[in.CertificateARN] != in.Host {
				t.Errorf("ingress %s: certificate %s not issued for %s (have %v)", in.Key, in.CertificateARN, in.Host, issued)
			}
		}
	}
	if tls != 4 || len(issued) != 4 {
		t.Errorf("%d TLS ingresses, %d issued certificates; want 4 and 4", tls, len(issued))
	}
	for _, s := range tf.NLBServices() {
		var svc corev1.Service
		if err := k8s.Get(ctx, s.Key, &svc); err != nil {
			t.Fatal(err)
		}
		if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || svc.Spec.LoadBalancerClass == nil || *svc.Spec.LoadBalancerClass != workload.NLBLoadBalancerClass ||
			svc.Annotations[lbmodel.AnnotationLBType] != "external" || svc.Annotations[lbmodel.AnnotationNLBTargetType] != "ip" {
			t.Errorf("LoadBalancer service %s: %+v %v", s.Key, svc.Spec, svc.Annotations)
		}
		checkSlice(t, k8s, s)
	}
}

func checkIngress(t *testing.T, k8s client.Client, ing *networkingv1.Ingress, f *workload.FleetPlan) {
	t.Helper()
	ctx := context.Background()
	plan, ok := f.Ingress(client.ObjectKeyFromObject(ing))
	if !ok {
		t.Fatalf("unplanned ingress %s", ing.Name)
	}
	a := ing.Annotations
	if a[lbmodel.AnnotationGroupName] != plan.Group || a[lbmodel.AnnotationGroupOrder] != strconv.Itoa(plan.Order) ||
		a[lbmodel.AnnotationTargetType] != "ip" || a[lbmodel.AnnotationScheme] != "internet-facing" ||
		*ing.Spec.IngressClassName != workload.IngressClassName || ing.Spec.Rules[0].Host != plan.Host {
		t.Errorf("ingress %s: annotations %v spec %+v", ing.Name, a, ing.Spec)
	}
	if g, ok := f.IngressGroupOf(plan.Key); !ok || len(g.Members) == 0 || len(g.Members) > 3 || g.Members[plan.Order-1] != plan.Key {
		t.Errorf("ingress %s: group %+v", ing.Name, g)
	}
	for i, p := range ing.Spec.Rules[0].HTTP.Paths {
		if p.Path != plan.Paths[i].Path || p.Backend.Service.Name != plan.Paths[i].Service || p.Backend.Service.Port.Number != 80 {
			t.Errorf("ingress %s path %d: %+v", ing.Name, i, p)
		}
	}
	for _, b := range f.IngressBackends(plan.Key) {
		checkSlice(t, k8s, b)
	}
	if plan.CertificateARN != "" {
		var secret corev1.Secret
		if err := k8s.Get(ctx, types.NamespacedName{Namespace: ing.Namespace, Name: ing.Spec.TLS[0].SecretName}, &secret); err != nil {
			t.Fatal(err)
		}
		block, _ := pem.Decode(secret.Data[corev1.TLSCertKey])
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil || secret.Type != corev1.SecretTypeTLS || cert.VerifyHostname(plan.Host) != nil || a[lbmodel.AnnotationCertificateARN] != plan.CertificateARN {
			t.Errorf("ingress %s: TLS secret %v %v, annotations %v", ing.Name, err, secret.Type, a)
		}
	}
	if plan.OIDCClientSecret == "" {
		if a[lbmodel.AnnotationAuthType] != "" {
			t.Errorf("ingress %s without OIDC authenticates: %v", ing.Name, a)
		}
		return
	}
	var idp struct{ Issuer, AuthorizationEndpoint, TokenEndpoint, UserInfoEndpoint, SecretName string }
	if err := json.Unmarshal([]byte(a[lbmodel.AnnotationAuthIDPOIDC]), &idp); err != nil || a[lbmodel.AnnotationAuthType] != "oidc" || idp.Issuer == "" || idp.TokenEndpoint == "" {
		t.Fatalf("ingress %s: auth annotations %v (%v)", ing.Name, a, err)
	}
	var secret corev1.Secret
	if err := k8s.Get(ctx, types.NamespacedName{Namespace: ing.Namespace, Name: idp.SecretName}, &secret); err != nil {
		t.Fatal(err)
	}
	if string(secret.Data["clientID"]) != plan.OIDCClientID || string(secret.Data["clientSecret"]) != plan.OIDCClientSecret {
		t.Errorf("ingress %s: OIDC secret %v, planned %s/%s", ing.Name, secret.Data, plan.OIDCClientID, plan.OIDCClientSecret)
	}
}

// checkSlice: the Service's EndpointSlice holds its planned pods on the target port.
func checkSlice(t *testing.T, k8s client.Client, s workload.ServiceInfo) {
	t.Helper()
	var slice discoveryv1.EndpointSlice
	if err := k8s.Get(context.Background(), types.NamespacedName{Namespace: s.Key.Namespace, Name: s.Key.Name + "-sim"}, &slice); err != nil {
		t.Fatal(err)
	}
	if len(slice.Endpoints) != len(s.Targets) || *slice.Ports[0].Port != s.TargetPort {
		t.Fatalf("slice of %s: %d endpoints on %d, want %v", s.Key, len(slice.Endpoints), *slice.Ports[0].Port, s.Targets)
	}
	for i, e := range slice.Endpoints {
		if e.Addresses[0] != s.Targets[i].ID && !hasAddress(slice.Endpoints, s.Targets[i].ID) {
			t.Fatalf("slice of %s: endpoint %d is %v, targets %v", s.Key, i, e.Addresses, s.Targets)
		}
	}
}

func hasAddress(eps []discoveryv1.Endpoint, ip string) bool {
	for _, e := range eps {
		if e.Addresses[0] == ip {
			return true
		}
	}
	return false
}

// sameNumbers reports whether a done/total match has done == total.
func sameNumbers(m []string) bool { return len(m) == 3 && m[1] == m[2] }
