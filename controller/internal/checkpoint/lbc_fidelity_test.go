package checkpoint

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// lbcSpecHash is the AWS Load Balancer Controller's spec half of the checkpoint, written from its
// algorithm rather than with this package: SHA-256 of the spec's JSON, unpadded base64url.
func lbcSpecHash(specJSON string) string {
	sum := sha256.Sum256([]byte(specJSON))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// TestSpecHashMatchesLBC: for bindings that set each field LBC hashes, the reference's spec hash is
// the hash of the JSON LBC marshals. The expected JSON is written by hand in the field order of LBC's
// TargetGroupBindingSpec (apis/elbv2/v1beta1): targetGroupARN, targetGroupName,
// multiClusterTargetGroup, targetType, targetGroupProtocol, serviceRef, networking, nodeSelector,
// ipAddressType, vpcID, iamRoleArnToAssume, assumeRoleExternalId. A dropped or reordered field fails.
func TestSpecHashMatchesLBC(t *testing.T) {
	const arn = "arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/web/0123456789abcdef"
	base := func() v1beta1.TargetGroupBindingSpec {
		ip := v1beta1.TargetTypeIP
		return v1beta1.TargetGroupBindingSpec{TargetGroupARN: arn, TargetType: &ip,
			ServiceRef: v1beta1.ServiceReference{Name: "web", Port: intstr.FromInt32(80)}}
	}
	const head = `{"targetGroupARN":"` + arn + `",`
	cases := []struct {
		name   string
		mutate func(*v1beta1.TargetGroupBindingSpec)
		lbc    string
	}{
		{"plain", func(*v1beta1.TargetGroupBindingSpec) {},
			head + `"targetType":"ip","serviceRef":{"name":"web","port":80}}`},
		{"targetGroupProtocol", func(s *v1beta1.TargetGroupBindingSpec) {
			s.TargetGroupProtocol = ptrTo(v1beta1.TargetGroupProtocol("TCP_QUIC"))
		}, head + `"targetType":"ip","targetGroupProtocol":"TCP_QUIC","serviceRef":{"name":"web","port":80}}`},
		{"iamRoleArnToAssume", func(s *v1beta1.TargetGroupBindingSpec) {
			s.IamRoleArnToAssume = "arn:aws:iam::210987654321:role/tg-access"
		}, head + `"targetType":"ip","serviceRef":{"name":"web","port":80},"iamRoleArnToAssume":"arn:aws:iam::210987654321:role/tg-access"}`},
		{"assumeRoleExternalId", func(s *v1beta1.TargetGroupBindingSpec) {
			s.IamRoleArnToAssume = "arn:aws:iam::210987654321:role/tg-access"
			s.AssumeRoleExternalId = "ext-42"
		}, head + `"targetType":"ip","serviceRef":{"name":"web","port":80},"iamRoleArnToAssume":"arn:aws:iam::210987654321:role/tg-access","assumeRoleExternalId":"ext-42"}`},
		{"port by name", func(s *v1beta1.TargetGroupBindingSpec) {
			s.ServiceRef.Port = intstr.FromString("http")
		}, head + `"targetType":"ip","serviceRef":{"name":"web","port":"http"}}`},
		// As the fleet's bindings with targetGroupProtocolShare, assumeRoleShare, namedPortShare and
		// networkingShare set them.
		{"fleet ip binding", func(s *v1beta1.TargetGroupBindingSpec) {
			s.TargetGroupProtocol = ptrTo(v1beta1.TargetGroupProtocol("HTTP"))
			s.ServiceRef.Port = intstr.FromString("http")
			s.Networking = &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{{
				From:  []v1beta1.NetworkingPeer{{IPBlock: &v1beta1.IPBlock{CIDR: "10.0.0.0/16"}}},
				Ports: []v1beta1.NetworkingPort{{Protocol: ptrTo(v1beta1.NetworkingProtocolTCP), Port: ptrTo(intstr.FromInt32(8080))}},
			}}}
			s.IamRoleArnToAssume = "arn:aws:iam::123456789012:role/restartsim-target-groups"
			s.AssumeRoleExternalId = "restartsim-svc-00001-bcdfg"
		}, head + `"targetType":"ip","targetGroupProtocol":"HTTP","serviceRef":{"name":"web","port":"http"},` +
			`"networking":{"ingress":[{"from":[{"ipBlock":{"cidr":"10.0.0.0/16"}}],"ports":[{"protocol":"TCP","port":8080}]}]},` +
			`"iamRoleArnToAssume":"arn:aws:iam::123456789012:role/restartsim-target-groups","assumeRoleExternalId":"restartsim-svc-00001-bcdfg"}`},
		{"fleet instance binding", func(s *v1beta1.TargetGroupBindingSpec) {
			s.TargetType = ptrTo(v1beta1.TargetTypeInstance)
			s.TargetGroupProtocol = ptrTo(v1beta1.TargetGroupProtocol("HTTP"))
			s.IamRoleArnToAssume = "arn:aws:iam::123456789012:role/restartsim-target-groups"
		}, head + `"targetType":"instance","targetGroupProtocol":"HTTP","serviceRef":{"name":"web","port":80},` +
			`"iamRoleArnToAssume":"arn:aws:iam::123456789012:role/restartsim-target-groups"}`},
		{"multiClusterTargetGroup", func(s *v1beta1.TargetGroupBindingSpec) {
			s.MultiClusterTargetGroup = true
		}, head + `"multiClusterTargetGroup":true,"targetType":"ip","serviceRef":{"name":"web","port":80}}`},
		{"every field", func(s *v1beta1.TargetGroupBindingSpec) {
			s.TargetGroupName = "web"
			s.MultiClusterTargetGroup = true
			s.TargetGroupProtocol = ptrTo(v1beta1.TargetGroupProtocol("HTTP"))
			s.Networking = &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{{
				From:  []v1beta1.NetworkingPeer{{SecurityGroup: &v1beta1.SecurityGroup{GroupID: "sg-1"}}},
				Ports: []v1beta1.NetworkingPort{{Protocol: ptrTo(v1beta1.NetworkingProtocolTCP), Port: ptrTo(intstr.FromString("http"))}},
			}}}
			s.IPAddressType = ptrTo(v1beta1.IPAddressTypeIPv4)
			s.VpcID = "vpc-0123abcd"
			s.IamRoleArnToAssume = "arn:aws:iam::210987654321:role/tg-access"
			s.AssumeRoleExternalId = "ext-42"
		}, head + `"targetGroupName":"web","multiClusterTargetGroup":true,"targetType":"ip","targetGroupProtocol":"HTTP",` +
			`"serviceRef":{"name":"web","port":80},` +
			`"networking":{"ingress":[{"from":[{"securityGroup":{"groupID":"sg-1"}}],"ports":[{"protocol":"TCP","port":"http"}]}]},` +
			`"ipAddressType":"ipv4","vpcID":"vpc-0123abcd",` +
			`"iamRoleArnToAssume":"arn:aws:iam::210987654321:role/tg-access","assumeRoleExternalId":"ext-42"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := base()
			tc.mutate(&spec)
			got, err := HashSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			if want := lbcSpecHash(tc.lbc); got != want {
				b, _ := json.Marshal(spec)
				t.Fatalf("spec hash %s, LBC's %s\nreference JSON %s\nLBC JSON       %s", got, want, b, tc.lbc)
			}
			// What LBC writes, the reference reads back whole: nothing is dropped on the way.
			var back v1beta1.TargetGroupBindingSpec
			if err := json.Unmarshal([]byte(tc.lbc), &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, spec) {
				t.Fatalf("LBC's JSON read back as %+v, want %+v", back, spec)
			}
		})
	}
}

// TestSpecFieldsAreLBCs: the spec has exactly LBC's JSON fields in LBC's order, so a field added
// here without LBC (or missed from LBC) is caught even when no case above sets it.
func TestSpecFieldsAreLBCs(t *testing.T) {
	lbc := []string{"targetGroupARN", "targetGroupName", "multiClusterTargetGroup", "targetType",
		"targetGroupProtocol", "serviceRef", "networking", "nodeSelector", "ipAddressType", "vpcID",
		"iamRoleArnToAssume", "assumeRoleExternalId"}
	typ := reflect.TypeFor[v1beta1.TargetGroupBindingSpec]()
	var got []string
	for i := range typ.NumField() {
		got = append(got, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	if !reflect.DeepEqual(got, lbc) {
		t.Fatalf("spec JSON fields\n got %v\nwant %v (LBC's order)", got, lbc)
	}
}
