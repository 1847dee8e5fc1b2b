package lbmodel

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

func TestCheckpointIsDeterministic(t *testing.T) {
	f := newFixture()
	f.ing.Annotations[AnnotationTags] = "a=1,b=2,c=3,d=4,e=5"
	f.secret.Data["extra1"], f.secret.Data["extra2"] = []byte("x"), []byte("y")
	first := f.checkpoint(t, Checkpoint)
	for range 20 { // map iteration order differs between runs; the hash must not
		if got := f.checkpoint(t, Checkpoint); got != first {
			t.Fatalf("checkpoint changed between identical builds: %s then %s", first, got)
		}
	}
	if len(first) != 43 {
		t.Fatalf("checkpoint %q is not a base64url SHA-256", first)
	}
}

func TestCheckpointChangesWithEveryInput(t *testing.T) {
	changes := map[string]func(f *fixture){
		"ingress rule path":        func(f *fixture) { f.ing.Spec.Rules[0].HTTP.Paths[0].Path = "/shop" },
		"ingress rule host":        func(f *fixture) { f.ing.Spec.Rules[0].Host = "other.example.com" },
		"backend service port":     func(f *fixture) { f.svc.Spec.Ports[0].TargetPort.IntVal = 9090 },
		"service node port":        func(f *fixture) { f.svc.Spec.Ports[0].NodePort = 30081 },
		"secret client secret":     func(f *fixture) { f.secret.Data["clientSecret"] = []byte("rotated") },
		"secret extra key":         func(f *fixture) { f.secret.Data["note"] = []byte("x") },
		"annotation healthcheck":   func(f *fixture) { f.ing.Annotations[AnnotationHealthPath] = "/healthz" },
		"annotation scheme":        func(f *fixture) { f.ing.Annotations[AnnotationScheme] = SchemeInternetFacing },
		"annotation unknown alb.*": func(f *fixture) { f.ing.Annotations[IngressAnnotationPrefix+"future-knob"] = "1" },
	}
	base := newFixture().checkpoint(t, Checkpoint)
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			f := newFixture()
			change(f)
			if got := f.checkpoint(t, Checkpoint); got == base {
				t.Fatalf("checkpoint did not change after %s", name)
			}
		})
	}
}

func TestCheckpointIgnoresWhatTheBuilderDoesNotRead(t *testing.T) {
	base := newFixture().checkpoint(t, Checkpoint)
	f := newFixture()
	f.ing.Annotations["example.com/checkpoint"] = "whatever the controller saved"
	f.ing.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: "lb.example.com"}}
	f.ing.ResourceVersion, f.svc.ResourceVersion = "42", "43"
	if got := f.checkpoint(t, Checkpoint); got != base {
		t.Fatal("checkpoint changed with the controller's own annotation, status or resource versions")
	}
}

func TestCheckpointIgnoringSecretsMissesASecretRotation(t *testing.T) {
	before := newFixture()
	after := newFixture()
	after.secret.Data["clientSecret"] = []byte("rotated")
	if a, b := before.checkpoint(t, CheckpointIgnoringSecrets), after.checkpoint(t, CheckpointIgnoringSecrets); a != b {
		t.Fatal("the Secret-blind checkpoint changed on a Secret rotation; the mutant would not be blind")
	}
	if a, b := before.checkpoint(t, Checkpoint), after.checkpoint(t, Checkpoint); a == b {
		t.Fatal("Checkpoint missed the Secret rotation")
	}
	// And the blind variant still sees everything else.
	after.ing.Spec.Rules[0].Host = "x.example.com"
	if a, b := before.checkpoint(t, CheckpointIgnoringSecrets), after.checkpoint(t, CheckpointIgnoringSecrets); a == b {
		t.Fatal("the Secret-blind checkpoint missed an Ingress change")
	}
}

func TestCheckpointNeverHoldsSecretMaterial(t *testing.T) {
	f := newFixture()
	st, in := f.build(t)
	doc, err := canonicalJSON(st, in)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc, "s3cret") || strings.Contains(doc, "czNjcmV0") {
		t.Fatalf("canonical document holds the client secret: %s", doc)
	}
	if st.Rules[0].Actions[0].AuthenticateOIDC.ClientSecret != "s3cret" {
		t.Fatal("the model lost the client secret the deployer needs")
	}
}

func TestSecretDigestSeparatesKeysAndValues(t *testing.T) {
	a := &corev1.Secret{Data: map[string][]byte{"ab": []byte("c")}}
	b := &corev1.Secret{Data: map[string][]byte{"a": []byte("bc")}}
	c := &corev1.Secret{Data: map[string][]byte{"a": []byte("b\nc=")}}
	if SecretDigest(a) == SecretDigest(b) || SecretDigest(b) == SecretDigest(c) {
		t.Fatal("distinct Secret contents share a digest")
	}
}

func canonicalJSON(st Stack, in Inputs) (string, error) {
	raw, err := canonicalBytes(st, in, true)
	return string(raw), err
}

func TestCheckpointIgnoresObjectsTheGroupDoesNotUse(t *testing.T) {
	build := func(unrelated string) string {
		f := newFixture()
		other := oidcSecret("shop", "unrelated", unrelated)
		otherSvc := testService("shop", "unused", 80, 80, 30001)
		otherSvc.Spec.Ports[0].TargetPort.IntVal = int32(len(unrelated))
		st, in, err := BuildIngress(IngressInput{ClusterName: testCluster,
			Group:    IngressGroup{ID: GroupID(&f.ing), Members: []networkingv1.Ingress{f.ing}},
			Services: []corev1.Service{f.svc, otherSvc}, Secrets: []corev1.Secret{other, f.secret}})
		if err != nil {
			t.Fatal(err)
		}
		h, err := Checkpoint(st, in)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if build("a") != build("something else") {
		t.Fatal("a Secret and a Service the group does not reference changed its checkpoint")
	}
}
