package observe

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
)

// An instance run through the SDK that no Node names is leaked capacity, a violation of the check
// (on an API server that serves no NodeClaims); once a Node registers with its provider ID, it is not.
func TestCheckInstancesFindsALeakedInstance(t *testing.T) {
	testenv.RequireAssets(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := env.Start(ctx, env.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Stop() }()
	c, err := client.New(e.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "AKID", SecretAccessKey: "secret", Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = srv.Close() }()
	ec := ec2.NewFromConfig(aws.Config{Region: "us-west-2", BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")})
	img, err := ec.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"amazon"},
		Filters: []ec2types.Filter{{Name: aws.String("architecture"), Values: []string{"x86_64"}}}})
	if err != nil || len(img.Images) == 0 {
		t.Fatalf("images: %v %v", img, err)
	}
	run, err := ec.RunInstances(ctx, &ec2.RunInstancesInput{MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
		InstanceType: "m5.large", ImageId: img.Images[0].ImageId})
	if err != nil {
		t.Fatal(err)
	}
	in := run.Instances[0]
	k := &Checker{backend: backend.Local{Server: srv}}
	k.CheckInstances(c)
	check := func() results.Invariants {
		t.Helper()
		f := &findings{bad: map[string]bool{}}
		if err := k.checkInstances(ctx, f); err != nil {
			t.Fatal(err)
		}
		return f.inv
	}
	inv := check()
	if inv.LeakedInstances != 1 || len(inv.Violations) != 1 || inv.Violations[0].Kind != results.ViolationLeakedInstance ||
		inv.Violations[0].TGB != "instance "+*in.InstanceId {
		t.Fatalf("invariants %+v, want %s leaked", inv, *in.InstanceId)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-0-1.us-west-2.compute.internal"},
		Spec: corev1.NodeSpec{ProviderID: "aws:///" + *in.Placement.AvailabilityZone + "/" + *in.InstanceId}}
	if err := c.Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	if inv := check(); inv.LeakedInstances != 0 || len(inv.Violations) != 0 {
		t.Fatalf("with its Node: %+v, want no leak", inv)
	}
}
