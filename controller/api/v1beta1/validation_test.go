package v1beta1_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/internal/testenv"
)

var k8s client.Client

// TestMain starts one envtest API server with the generated CRD for the whole package.
func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	env, err := testenv.Start(filepath.Join("..", "..", "config", "crd"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	k8s = env.Client
	return m.Run()
}

func validTGB(name string) *v1beta1.TargetGroupBinding {
	ip := v1beta1.TargetTypeIP
	return &v1beta1.TargetGroupBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: v1beta1.TargetGroupBindingSpec{
			TargetGroupARN: "arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/" + name + "/0123456789abcdef",
			TargetType:     &ip,
			ServiceRef:     v1beta1.ServiceReference{Name: "web", Port: intstr.FromInt32(80)},
			VpcID:          "vpc-0123abcd",
		},
	}
}

func TestCRDAcceptsValidAndRejectsInvalid(t *testing.T) {
	ctx := context.Background()
	tgb := validTGB("valid")
	if err := k8s.Create(ctx, tgb); err != nil {
		t.Fatalf("creating a valid TargetGroupBinding: %v", err)
	}

	cases := []struct {
		name    string
		mutate  func(*v1beta1.TargetGroupBinding)
		wantErr string
	}{
		{"bad targetType", func(b *v1beta1.TargetGroupBinding) {
			bad := v1beta1.TargetType("lambda")
			b.Spec.TargetType = &bad
		}, "spec.targetType"},
		{"bad ipAddressType", func(b *v1beta1.TargetGroupBinding) {
			bad := v1beta1.IPAddressType("ipv5")
			b.Spec.IPAddressType = &bad
		}, "spec.ipAddressType"},
		{"no target group", func(b *v1beta1.TargetGroupBinding) { b.Spec.TargetGroupARN = "" }, "one of targetGroupARN and targetGroupName"},
		{"bad vpcID", func(b *v1beta1.TargetGroupBinding) { b.Spec.VpcID = "subnet-1" }, "spec.vpcID"},
		{"peer with both", func(b *v1beta1.TargetGroupBinding) {
			b.Spec.Networking = &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{{
				From:  []v1beta1.NetworkingPeer{{IPBlock: &v1beta1.IPBlock{CIDR: "10.0.0.0/8"}, SecurityGroup: &v1beta1.SecurityGroup{GroupID: "sg-1"}}},
				Ports: []v1beta1.NetworkingPort{{}},
			}}}
		}, "exactly one of ipBlock and securityGroup"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := validTGB(fmt.Sprintf("invalid-%d", i))
			tc.mutate(b)
			err := k8s.Create(ctx, b)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Create error = %v; want one mentioning %q", err, tc.wantErr)
			}
		})
	}
}

func TestCRDMissingPortRejected(t *testing.T) {
	u := map[string]any{
		"apiVersion": "elbv2.k8s.aws/v1beta1", "kind": "TargetGroupBinding",
		"metadata": map[string]any{"name": "noport", "namespace": "default"},
		"spec": map[string]any{
			"targetGroupARN": "arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/x/1",
			"serviceRef":     map[string]any{"name": "web"},
		},
	}
	obj := &unstructured.Unstructured{Object: u}
	err := k8s.Create(context.Background(), obj)
	if err == nil || !strings.Contains(err.Error(), "spec.serviceRef.port") {
		t.Fatalf("Create error = %v; want spec.serviceRef.port required", err)
	}
}

func TestCRDImmutableFields(t *testing.T) {
	ctx := context.Background()
	tgb := validTGB("immutable")
	if err := k8s.Create(ctx, tgb); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		mutate  func(*v1beta1.TargetGroupBinding)
		wantErr string
	}{
		{"targetGroupARN", func(b *v1beta1.TargetGroupBinding) { b.Spec.TargetGroupARN += "0" }, "targetGroupARN is immutable"},
		{"targetType", func(b *v1beta1.TargetGroupBinding) {
			inst := v1beta1.TargetTypeInstance
			b.Spec.TargetType = &inst
		}, "targetType is immutable"},
		{"targetType removed", func(b *v1beta1.TargetGroupBinding) { b.Spec.TargetType = nil }, "targetType is immutable"},
		{"vpcID", func(b *v1beta1.TargetGroupBinding) { b.Spec.VpcID = "vpc-ffff" }, "vpcID is immutable"},
		{"ipAddressType added", func(b *v1beta1.TargetGroupBinding) {
			v6 := v1beta1.IPAddressTypeIPv6
			b.Spec.IPAddressType = &v6
		}, "ipAddressType is immutable"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cur := &v1beta1.TargetGroupBinding{}
			if err := k8s.Get(ctx, client.ObjectKeyFromObject(tgb), cur); err != nil {
				t.Fatal(err)
			}
			tc.mutate(cur)
			err := k8s.Update(ctx, cur)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Update error = %v; want %q", err, tc.wantErr)
			}
		})
	}
	// A mutable field still updates.
	cur := &v1beta1.TargetGroupBinding{}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(tgb), cur); err != nil {
		t.Fatal(err)
	}
	cur.Spec.ServiceRef.Port = intstr.FromString("http")
	if err := k8s.Update(ctx, cur); err != nil {
		t.Fatalf("updating serviceRef.port: %v", err)
	}
}

// TestCRDKeepsLBCFields: the fields the AWS Load Balancer Controller hashes into its checkpoint are
// stored, not pruned, so both controllers hash the same spec.
func TestCRDKeepsLBCFields(t *testing.T) {
	ctx := context.Background()
	tgb := validTGB("lbc-fields")
	quic := v1beta1.TargetGroupProtocol("TCP_QUIC")
	tgb.Spec.TargetGroupProtocol = &quic
	tgb.Spec.IamRoleArnToAssume = "arn:aws:iam::210987654321:role/tg-access"
	tgb.Spec.AssumeRoleExternalId = "ext-42"
	tgb.Spec.MultiClusterTargetGroup = true
	want := tgb.Spec
	if err := k8s.Create(ctx, tgb); err != nil {
		t.Fatal(err)
	}
	got := &v1beta1.TargetGroupBinding{}
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(tgb), got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Spec, want) {
		t.Fatalf("stored spec %+v, want %+v", got.Spec, want)
	}
	bad := validTGB("bad-protocol")
	sctp := v1beta1.TargetGroupProtocol("SCTP")
	bad.Spec.TargetGroupProtocol = &sctp
	if err := k8s.Create(ctx, bad); err == nil || !strings.Contains(err.Error(), "spec.targetGroupProtocol") {
		t.Fatalf("Create error = %v; want spec.targetGroupProtocol rejected", err)
	}
}
