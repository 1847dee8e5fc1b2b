package fakeaws_test

import (
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/eks"
	ekstypes "github.com/aws/aws-sdk-go-v2/service/eks/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/restartsim/restartsim/fakeaws"
)

const al2023Recommended = "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/standard/recommended/image_id"

// The AL2023 alias as a node provisioner resolves it: the recommended image_id parameter of each architecture
// names an image DescribeImages answers (the newest release), a versioned parameter names its release, and
// the GPU variants, which have no image here, are ParameterNotFound.
func TestSSMEKSAMIParameters(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := ssm.NewFromConfig(e.cfg)
	p := must[*ssm.GetParameterOutput](t)(c.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(al2023Recommended)})).Parameter
	if aws.ToString(p.Value) != "ami-0a1b2c3d4e5f60721" || p.Type != "String" || aws.ToString(p.DataType) != "aws:ec2:image" ||
		aws.ToString(p.ARN) != "arn:aws:ssm:us-west-2::parameter"+al2023Recommended || p.LastModifiedDate == nil {
		t.Fatalf("parameter %+v", p)
	}
	img := must[*ec2.DescribeImagesOutput](t)(e.ec2.DescribeImages(ctx, &ec2.DescribeImagesInput{
		Filters: []ec2types.Filter{{Name: aws.String("image-id"), Values: []string{aws.ToString(p.Value)}}}})).Images
	if len(img) != 1 || img[0].Architecture != ec2types.ArchitectureValuesX8664 {
		t.Fatalf("the parameter's image: %+v", img)
	}
	arm := "/aws/service/eks/optimized-ami/1.37/amazon-linux-2023/arm64/standard/amazon-eks-node-al2023-arm64-standard-1.37-v20251103/image_id"
	nvidia := "/aws/service/eks/optimized-ami/1.34/amazon-linux-2023/x86_64/nvidia/recommended/image_id"
	many := must[*ssm.GetParametersOutput](t)(c.GetParameters(ctx, &ssm.GetParametersInput{Names: []string{arm, nvidia}}))
	if len(many.Parameters) != 1 || aws.ToString(many.Parameters[0].Value) != "ami-0a1b2c3d4e5f60712" ||
		strings.Join(many.InvalidParameters, ",") != nvidia {
		t.Fatalf("GetParameters: %+v invalid %v", many.Parameters, many.InvalidParameters)
	}
	_, err := c.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(nvidia)})
	wantCode(t, err, "ParameterNotFound")
	_, err = c.GetParameters(ctx, &ssm.GetParametersInput{Names: make([]string, 11)})
	wantCode(t, err, "ValidationException")

	// Parameter Store's 40 per second: the 41st call within the same instant is throttled.
	if err := e.srv.SetProfile(fakeaws.ProfileAWSDocumented); err != nil {
		t.Fatal(err)
	}
	for i := range 41 {
		_, err = c.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(al2023Recommended)})
		if (err != nil) != (i == 40) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	wantCode(t, err, "ThrottlingException")
	last := e.srv.Recorder().Calls()
	if l := last[len(last)-1]; l.Service != fakeaws.ServiceSSM || l.Operation != "GetParameter" || l.Bucket != fakeaws.CategorySSM || l.HTTPStatus != 400 {
		t.Errorf("recorded %+v", l)
	}
}

// DescribeCluster answers the configured cluster through the real EKS client, with its defaults; another
// name, or no cluster at all, is ResourceNotFoundException (404).
func TestEKSDescribeCluster(t *testing.T) {
	e := newEnv(t, fakeaws.Options{AccountID: "210987654321"})
	c := eks.NewFromConfig(e.cfg)
	_, err := c.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("demo")})
	wantCode(t, err, "ResourceNotFoundException")
	if _, err := e.srv.SetEKSCluster(fakeaws.EKSCluster{Name: "demo", Endpoint: "https://127.0.0.1:6443", CertificateAuthority: "Y2E=", Version: "1.37"}); err != nil {
		t.Fatal(err)
	}
	cl := must[*eks.DescribeClusterOutput](t)(c.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("demo")})).Cluster
	if aws.ToString(cl.Arn) != "arn:aws:eks:us-west-2:210987654321:cluster/demo" || cl.Status != ekstypes.ClusterStatusActive ||
		aws.ToString(cl.Version) != "1.37" || aws.ToString(cl.Endpoint) != "https://127.0.0.1:6443" ||
		aws.ToString(cl.CertificateAuthority.Data) != "Y2E=" || aws.ToString(cl.PlatformVersion) != "eks.1" ||
		!cl.CreatedAt.Equal(t0) {
		t.Fatalf("cluster %+v", cl)
	}
	if n := cl.KubernetesNetworkConfig; aws.ToString(n.ServiceIpv4Cidr) != "172.20.0.0/16" || n.IpFamily != ekstypes.IpFamilyIpv4 {
		t.Errorf("network %+v", n)
	}
	_, err = c.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("other")})
	wantCode(t, err, "ResourceNotFoundException")
	e.srv.AddOutage(t0, time.Minute, fakeaws.ServiceEKS)
	_, err = c.DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("demo")})
	wantCode(t, err, "ServiceUnavailableException")

	var got []string
	for _, call := range e.srv.Recorder().Calls() {
		got = append(got, call.Service+"/"+call.Operation+"/"+call.ErrorCode)
	}
	want := "eks/DescribeCluster/ResourceNotFoundException,eks/DescribeCluster/,eks/DescribeCluster/ResourceNotFoundException," +
		"eks/DescribeCluster/ServiceUnavailableException"
	if strings.Join(got, ",") != want {
		t.Errorf("recorded %s\nwant     %s", strings.Join(got, ","), want)
	}
}

// The admin HTTP API configures the cluster and seeds a role; both show in the state and answer the real
// clients.
func TestAdminEKSClusterAndRole(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	for path, body := range map[string]string{
		"/_restartsim/eks/cluster": `{"name":"admin","endpoint":"https://10.0.0.1","serviceIpv4Cidr":"10.100.0.0/16"}`,
		"/_restartsim/seed/role":   `{"name":"NodeRole","path":"/nodes/"}`,
	} {
		if code, out := adminDo(t, e, "POST", path, body, true); code != 200 {
			t.Fatalf("%s: %d %s", path, code, out)
		}
	}
	if code, out := adminDo(t, e, "POST", "/_restartsim/seed/role", `{"name":"NodeRole"}`, true); code != 409 || !strings.Contains(out, "EntityAlreadyExists") {
		t.Errorf("a second role of the name: %d %s", code, out)
	}
	cl := must[*eks.DescribeClusterOutput](t)(eks.NewFromConfig(e.cfg).DescribeCluster(ctx, &eks.DescribeClusterInput{Name: aws.String("admin")})).Cluster
	if aws.ToString(cl.KubernetesNetworkConfig.ServiceIpv4Cidr) != "10.100.0.0/16" || aws.ToString(cl.Version) != "1.34" {
		t.Errorf("cluster %+v", cl)
	}
	r := must[*iam.GetRoleOutput](t)(e.iamClient("us-east-1").GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("NodeRole")})).Role
	if aws.ToString(r.Arn) != "arn:aws:iam::123456789012:role/nodes/NodeRole" {
		t.Errorf("role %+v", r)
	}
	if _, state := adminDo(t, e, "GET", "/_restartsim/state", "", true); !strings.Contains(state, `"eksCluster":{"name":"admin"`) ||
		!strings.Contains(state, `"roleName":"NodeRole"`) {
		t.Errorf("state: %s", state)
	}
}
