package fakeaws_test

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestAccountServicesAWSCLI drives IAM, SSM and EKS with the AWS CLI (botocore's Query, JSON 1.1 and
// REST-JSON clients and their signer): one call each, and one of IAM's errors as the CLI reports it.
func TestAccountServicesAWSCLI(t *testing.T) {
	cli := awsCLIOrSkip(t)
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited,
		IAMRoles: []string{"NodeRole"}, EKSCluster: &fakeaws.EKSCluster{Name: "demo", Endpoint: "https://127.0.0.1:6443"}})
	if err != nil {
		t.Fatal(err)
	}
	url := startServer(t, srv)
	profile := awsCLI(t, cli, url, "iam", "us-east-1")("create-instance-profile", "--instance-profile-name", "nodes", "--path", "/karpenter/")
	if arn := profile["InstanceProfile"].(map[string]any)["Arn"]; arn != "arn:aws:iam::123456789012:instance-profile/karpenter/nodes" {
		t.Errorf("create-instance-profile: %v", profile)
	}
	out, err := awsCLIRaw(t, cli, url, "iam", "us-east-1")("add-role-to-instance-profile", "--instance-profile-name", "nodes", "--role-name", "Missing")
	if err == nil || !strings.Contains(string(out), "(NoSuchEntity)") {
		t.Errorf("add-role-to-instance-profile of a missing role: %v\n%s", err, out)
	}
	p := awsCLI(t, cli, url, "ssm", "us-west-2")("get-parameter", "--name", al2023Recommended)
	if v := p["Parameter"].(map[string]any)["Value"]; v != "ami-0a1b2c3d4e5f60721" {
		t.Errorf("get-parameter: %v", p)
	}
	c := awsCLI(t, cli, url, "eks", "us-west-2")("describe-cluster", "--name", "demo")["cluster"].(map[string]any)
	if c["status"] != "ACTIVE" || c["kubernetesNetworkConfig"].(map[string]any)["serviceIpv4Cidr"] != "172.20.0.0/16" {
		t.Errorf("describe-cluster: %v", c)
	}
}
