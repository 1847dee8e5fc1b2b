package controller

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/internal/testwait"
)

// lbcHash is the AWS Load Balancer Controller's hash of one checkpoint half: SHA-256, unpadded base64url.
func lbcHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestCheckpointIsLBCs: the checkpoint the reference saves, through the API server, for a binding
// that sets targetGroupProtocol, iamRoleArnToAssume and assumeRoleExternalId, names its Service port
// beside a second named one, and whose pod is listed in two slices, is the one the AWS Load Balancer
// Controller computes (written here from LBC's algorithm, not this package's): the sorted
// ip:port:podCreationMillis of every listing joined by commas, and the spec's JSON in LBC's field
// order. So LBC early-exits on it after a switch from the reference, and the reference on LBC's.
func TestCheckpointIsLBCs(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	svc := mkService(ns, "web", 0)
	svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9090)})
	create(t, svc)
	var eps []epRef
	for i := range 2 {
		p := mkPod(ns, fmt.Sprintf("web-%d", i))
		create(t, p)
		setContainersReady(t, p, true)
		eps = append(eps, epRef{pod: p.Name, ip: fmt.Sprintf("10.0.7.%d", i+1), ready: true})
	}
	withMetrics := func(s *discoveryv1.EndpointSlice) *discoveryv1.EndpointSlice {
		s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: ptr.To("metrics"), Port: ptr.To[int32](9090), Protocol: ptr.To(corev1.ProtocolTCP)})
		return s
	}
	// web-0 is listed in both slices, as while the endpoint slice controller moves an endpoint.
	create(t, withMetrics(mkSlice(ns, "web-a", "web", eps...)), withMetrics(mkSlice(ns, "web-b", "web", eps[0])))
	const role = "arn:aws:iam::210987654321:role/tg-access"
	tgb := mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP)
	tgb.Spec.ServiceRef.Port = intstr.FromString("http")
	tgb.Spec.TargetGroupProtocol = ptr.To(v1beta1.TargetGroupProtocol("HTTP"))
	tgb.Spec.IamRoleArnToAssume = role
	tgb.Spec.AssumeRoleExternalId = "ext-42"
	create(t, tgb)

	startController(t, ns, testOptions(CheckpointAnnotation))
	testwait.Until(t, 10*time.Second, "registration of both pods on the http port", func() bool {
		return sameSet(liveTargets(t, arn), "10.0.7.1:8080", "10.0.7.2:8080")
	})
	var saved string
	testwait.Until(t, 10*time.Second, "checkpoint", func() bool {
		saved = getTGB(t, ns, "web").Annotations[checkpoint.AnnotationCheckpoint]
		return saved != ""
	})

	var ids []string
	for _, e := range []epRef{eps[0], eps[1], eps[0]} {
		p := &corev1.Pod{}
		if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: e.pod}, p); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, fmt.Sprintf("%s:8080:%d", e.ip, p.CreationTimestamp.UnixMilli()))
	}
	sort.Strings(ids)
	spec := `{"targetGroupARN":"` + arn + `","targetType":"ip","targetGroupProtocol":"HTTP",` +
		`"serviceRef":{"name":"web","port":"http"},"iamRoleArnToAssume":"` + role + `","assumeRoleExternalId":"ext-42"}`
	if want := lbcHash(strings.Join(ids, ",")) + "/" + lbcHash(spec); saved != want {
		t.Fatalf("checkpoint %s, LBC's %s\nendpoint identifiers %v\nLBC's spec JSON %s", saved, want, ids, spec)
	}
}
