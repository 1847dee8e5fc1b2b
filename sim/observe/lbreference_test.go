package observe

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restartsim/restartsim/controller/lbdeploy"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
)

// The check's tests deploy with the reference controller's own model and deployer (lbmodel,
// lbdeploy): that is the deployment under check. The check's expectation never comes from them.

// startDeployer starts an in-process fakeaws and returns it with an ELBv2 client of it and a
// deployer for cluster "sim".
func startDeployer(t *testing.T) (*fakeaws.Server, *elbv2.Client, *lbdeploy.Deployer) {
	t.Helper()
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "AKID", SecretAccessKey: "secret", Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	// The HTTPS listeners of the test Ingresses name this certificate; the account holds it.
	if _, err := srv.SeedCertificate(fakeaws.CertificateSeed{ARN: testCertificate, Domain: "shop.example.com"}); err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cfg := aws.Config{Region: "us-west-2", BaseEndpoint: aws.String(url), Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	elb := elbv2.NewFromConfig(cfg)
	dep, err := lbdeploy.New(lbdeploy.Config{ClusterName: "sim", VpcID: srv.DefaultVPCID(), ELB: elb, EC2: ec2.NewFromConfig(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	return srv, elb, dep
}

// referenceStacks are the stacks the reference controller builds for o (IngressClassParams aside).
func referenceStacks(t *testing.T, o LoadBalancerObjects) []lbmodel.Stack {
	t.Helper()
	var ingresses []networkingv1.Ingress
	for _, ing := range o.Ingresses {
		if lbmodel.BelongsToClass(&ing, o.IngressClass) {
			ingresses = append(ingresses, ing)
		}
	}
	groups, err := lbmodel.GroupIngresses(ingresses)
	if err != nil {
		t.Fatal(err)
	}
	var stacks []lbmodel.Stack
	for _, g := range groups {
		st, _, err := lbmodel.BuildIngress(lbmodel.IngressInput{ClusterName: o.ClusterName, Group: g, Services: o.Services, Secrets: o.Secrets})
		if err != nil {
			t.Fatal(err)
		}
		stacks = append(stacks, st)
	}
	for _, svc := range o.Services {
		if lbmodel.ManagesService(&svc) {
			st, _, err := lbmodel.BuildService(lbmodel.ServiceInput{ClusterName: o.ClusterName, Service: svc})
			if err != nil {
				t.Fatal(err)
			}
			stacks = append(stacks, st)
		}
	}
	return stacks
}

// deployStacks deploys every stack and returns the results in order.
func deployStacks(t *testing.T, dep *lbdeploy.Deployer, stacks []lbmodel.Stack) []lbdeploy.Result {
	t.Helper()
	var out []lbdeploy.Result
	for _, st := range stacks {
		res, err := dep.Deploy(context.Background(), st)
		if err != nil {
			t.Fatalf("deploying %s: %v", st.ID.Name, err)
		}
		out = append(out, res)
	}
	return out
}

// deployObjects deploys the reference controller's one stack of o.
func deployObjects(t *testing.T, dep *lbdeploy.Deployer, o LoadBalancerObjects) lbdeploy.Result {
	t.Helper()
	stacks := referenceStacks(t, o)
	if len(stacks) != 1 {
		t.Fatalf("%d stacks, want 1", len(stacks))
	}
	return deployStacks(t, dep, stacks)[0]
}
