package workload_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/internal/tgattach"
	"github.com/restartsim/restartsim/sim/workload"
)

// The envtest API server (with the TGB CRD and a /12 service range, so NodePort Services do not run
// out of cluster IPs) is started by the first test that needs it and shared by the rest; tests that
// only plan fleets run without envtest assets.
var (
	envOnce   sync.Once
	sharedEnv *testenv.Env
	envErr    error
)

// cluster returns the package's envtest API server, starting it on first use.
func cluster(t testing.TB) *testenv.Env {
	t.Helper()
	envOnce.Do(func() {
		sharedEnv, envErr = testenv.Start(filepath.Join("..", "..", "controller", "config", "crd"))
	})
	if envErr != nil {
		t.Fatal(envErr)
	}
	return sharedEnv
}

// TestMain stops the API server after the tests if one of them started it.
func TestMain(m *testing.M) {
	code := m.Run()
	if sharedEnv != nil {
		if err := sharedEnv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping envtest:", err)
		}
	}
	os.Exit(code)
}

// awsEnv is an in-process fakeaws with SDK clients, and a Provisioner over them: target and security
// groups through the real ELBv2/EC2 APIs, instances and ENIs through the admin API.
type awsEnv struct {
	srv    *fakeaws.Server
	elb    *elb.Client
	ec2    *ec2.Client
	attach *tgattach.Attacher // puts each group behind a load balancer, so that its targets are health checked
}

func newAWS(t testing.TB) *awsEnv {
	t.Helper()
	srv, err := fakeaws.New(fakeaws.Options{Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	o := srv.Options()
	ac := aws.Config{
		Region:       o.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(o.AccessKeyID, o.SecretAccessKey, ""),
		BaseEndpoint: aws.String(hs.URL),
	}
	e := &awsEnv{srv: srv, elb: elb.NewFromConfig(ac), ec2: ec2.NewFromConfig(ac)}
	e.attach = tgattach.New(e.elb, e.ec2)
	return e
}

func (a *awsEnv) CreateTargetGroup(ctx context.Context, name string, tt v1beta1.TargetType, port int32, vpcID string) (string, error) {
	in := &elb.CreateTargetGroupInput{
		Name: aws.String(name), TargetType: elbtypes.TargetTypeEnum(tt), Port: aws.Int32(port),
		Protocol: elbtypes.ProtocolEnumHttp,
	}
	if vpcID == "" {
		vpcID = a.srv.DefaultVPCID()
	}
	in.VpcId = aws.String(vpcID)
	out, err := a.elb.CreateTargetGroup(ctx, in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.TargetGroups[0].TargetGroupArn), a.attach.Attach(ctx, out.TargetGroups[0])
}

func (a *awsEnv) CreateSecurityGroup(ctx context.Context, name, vpcID string) (string, error) {
	in := &ec2.CreateSecurityGroupInput{GroupName: aws.String(name), Description: aws.String("restartsim " + name)}
	if vpcID != "" {
		in.VpcId = aws.String(vpcID)
	}
	out, err := a.ec2.CreateSecurityGroup(ctx, in)
	if err != nil {
		return "", err
	}
	return aws.ToString(out.GroupId), nil
}

func (a *awsEnv) SeedInstance(_ context.Context, id, ip string, sgs []string) error {
	_, err := a.srv.SeedInstance(fakeaws.Instance{ID: id, PrivateIP: ip, SecurityGroupIDs: sgs})
	return err
}

func (a *awsEnv) TagResources(ctx context.Context, ids []string, tags map[string]string) error {
	in := &ec2.CreateTagsInput{Resources: ids}
	for k, v := range tags {
		in.Tags = append(in.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	_, err := a.ec2.CreateTags(ctx, in)
	return err
}

func (a *awsEnv) SeedCertificate(_ context.Context, arn, domain string) error {
	_, err := a.srv.SeedCertificate(fakeaws.CertificateSeed{ARN: arn, Domain: domain})
	return err
}

func (a *awsEnv) SeedNetworkInterface(_ context.Context, n workload.NetworkInterface) error {
	e := fakeaws.ENI{ID: n.ID, PrivateIPs: n.PrivateIPs, SecurityGroupIDs: n.SecurityGroupIDs, InterfaceType: n.InterfaceType,
		AvailabilityZone: n.AvailabilityZone, InstanceID: n.InstanceID, DeviceIndex: n.DeviceIndex, MACAddress: n.MACAddress,
		Description: n.Description}
	for k, v := range n.Tags {
		e.Tags = append(e.Tags, fakeaws.Tag{Key: k, Value: v})
	}
	_, err := a.srv.SeedENI(e)
	return err
}
