package fakeaws_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// iamClient is an IAM client of e, signing in region (IAM is global: us-east-1 or the server's).
func (e *env) iamClient(region string) *iam.Client {
	cfg := e.cfg.Copy()
	cfg.Region = region
	return iam.NewFromConfig(cfg)
}

// The instance profile life cycle a node provisioner drives, through the real IAM client: create with a path
// and tags, add the seeded role, get, tag, list by path prefix, then remove and delete; each refusal with
// IAM's code.
func TestIAMInstanceProfiles(t *testing.T) {
	e := newEnv(t, fakeaws.Options{AccountID: "210987654321", IAMRoles: []string{"KarpenterNodeRole"}})
	c := e.iamClient("us-east-1")
	created, err := c.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("cluster_123"),
		Path: aws.String("/karpenter/us-west-2/demo/"), Tags: []iamtypes.Tag{{Key: aws.String("karpenter.sh/managed-by"), Value: aws.String("demo")}}})
	if err != nil {
		t.Fatal(err)
	}
	p := created.InstanceProfile
	if aws.ToString(p.Arn) != "arn:aws:iam::210987654321:instance-profile/karpenter/us-west-2/demo/cluster_123" ||
		!regexp.MustCompile(`^AIPA[A-Z2-7]{17}$`).MatchString(aws.ToString(p.InstanceProfileId)) || len(p.Roles) != 0 || p.CreateDate == nil {
		t.Fatalf("created %+v", p)
	}
	_, err = c.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("cluster_123")})
	wantCode(t, err, "EntityAlreadyExists")
	_, err = c.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("cluster_123"), RoleName: aws.String("Missing")})
	wantCode(t, err, "NoSuchEntity")
	must[*iam.AddRoleToInstanceProfileOutput](t)(c.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{
		InstanceProfileName: aws.String("cluster_123"), RoleName: aws.String("KarpenterNodeRole")}))
	must[*fakeaws.IAMRole](t)(ptr(e.srv.SeedRole(fakeaws.RoleSeed{Name: "Other"})))
	_, err = c.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String("cluster_123"), RoleName: aws.String("Other")})
	wantCode(t, err, "LimitExceeded")
	must[*iam.TagInstanceProfileOutput](t)(c.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{InstanceProfileName: aws.String("cluster_123"),
		Tags: []iamtypes.Tag{{Key: aws.String("karpenter.sh/managed-by"), Value: aws.String("demo2")}, {Key: aws.String("team"), Value: aws.String("a")}}}))

	got := must[*iam.GetInstanceProfileOutput](t)(c.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("cluster_123")})).InstanceProfile
	if len(got.Roles) != 1 || aws.ToString(got.Roles[0].RoleName) != "KarpenterNodeRole" ||
		aws.ToString(got.Roles[0].Arn) != "arn:aws:iam::210987654321:role/KarpenterNodeRole" {
		t.Errorf("roles %+v", got.Roles)
	}
	if tags := tagString(got.Tags); tags != "karpenter.sh/managed-by=demo2,team=a" {
		t.Errorf("tags %s", tags)
	}
	_, err = c.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String("cluster_123")})
	wantCode(t, err, "DeleteConflict")

	// The server's region signs too (a client with only an endpoint signs in its own region).
	w := e.iamClient("us-west-2")
	must[*iam.CreateInstanceProfileOutput](t)(w.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("elsewhere")}))
	var names []string
	pages := iam.NewListInstanceProfilesPaginator(w, &iam.ListInstanceProfilesInput{PathPrefix: aws.String("/karpenter/"), MaxItems: aws.Int32(1)})
	for pages.HasMorePages() {
		for _, p := range must[*iam.ListInstanceProfilesOutput](t)(pages.NextPage(ctx)).InstanceProfiles {
			names = append(names, aws.ToString(p.InstanceProfileName))
		}
	}
	all := must[*iam.ListInstanceProfilesOutput](t)(w.ListInstanceProfiles(ctx, &iam.ListInstanceProfilesInput{}))
	if strings.Join(names, ",") != "cluster_123" || len(all.InstanceProfiles) != 2 || aws.ToBool(&all.IsTruncated) {
		t.Errorf("under /karpenter/: %v; all: %d", names, len(all.InstanceProfiles))
	}

	must[*iam.RemoveRoleFromInstanceProfileOutput](t)(c.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{
		InstanceProfileName: aws.String("cluster_123"), RoleName: aws.String("KarpenterNodeRole")}))
	_, err = c.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{
		InstanceProfileName: aws.String("cluster_123"), RoleName: aws.String("KarpenterNodeRole")})
	wantCode(t, err, "NoSuchEntity")
	must[*iam.DeleteInstanceProfileOutput](t)(c.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String("cluster_123")}))
	_, err = c.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String("cluster_123")})
	wantCode(t, err, "NoSuchEntity")
	_, err = c.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{InstanceProfileName: aws.String("bad name")})
	wantCode(t, err, "ValidationError")
}

// GetRole answers a seeded role; other names, a region that is neither us-east-1 nor the server's, and a
// missing signature get IAM's errors. Every call is recorded as IAM and charged to IAM's bucket.
func TestIAMGetRoleAndRefusals(t *testing.T) {
	e := newEnv(t, fakeaws.Options{AccountID: "210987654321", IAMRoles: []string{"KarpenterNodeRole"}})
	c := e.iamClient("us-east-1")
	r := must[*iam.GetRoleOutput](t)(c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("KarpenterNodeRole")})).Role
	if aws.ToString(r.Arn) != "arn:aws:iam::210987654321:role/KarpenterNodeRole" || aws.ToString(r.Path) != "/" ||
		!strings.HasPrefix(aws.ToString(r.RoleId), "AROA") {
		t.Errorf("role %+v", r)
	}
	_, err := c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("Nope")})
	wantCode(t, err, "NoSuchEntity")
	_, err = e.iamClient("eu-west-1").GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("KarpenterNodeRole")})
	wantCode(t, err, "SignatureDoesNotMatch")
	_, err = e.srv.SeedRole(fakeaws.RoleSeed{Name: "KarpenterNodeRole"})
	if err == nil || !strings.HasPrefix(err.Error(), "EntityAlreadyExists") {
		t.Errorf("seeding a taken name: %v", err)
	}

	e.srv.SetLimit(fakeaws.CategoryIAM, 0, 0)
	_, err = c.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String("KarpenterNodeRole")})
	wantCode(t, err, "Throttling")
	var ops []string
	for _, call := range e.srv.Recorder().Calls() {
		if call.Service != fakeaws.ServiceIAM {
			t.Errorf("recorded as %q: %+v", call.Service, call)
		}
		ops = append(ops, call.Operation+"/"+call.Outcome+"/"+call.Bucket)
	}
	want := "GetRole/ok/iam/request,GetRole/error/iam/request,unknown/error/,GetRole/throttled/iam/request"
	if strings.Join(ops, ",") != want {
		t.Errorf("recorded %s\nwant     %s", strings.Join(ops, ","), want)
	}
}

func tagString(tags []iamtypes.Tag) string {
	var s []string
	for _, t := range tags {
		s = append(s, aws.ToString(t.Key)+"="+aws.ToString(t.Value))
	}
	return strings.Join(s, ",")
}

func ptr[T any](v T, err error) (*T, error) { return &v, err }

// An instance launched with an instance profile's name carries the profile's ARN, path included; a name IAM
// does not hold gets the ARN it would have at path "/".
func TestIAMProfileOfLaunchedInstance(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	must[*iam.CreateInstanceProfileOutput](t)(e.iamClient("us-east-1").CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
		InstanceProfileName: aws.String("nodes"), Path: aws.String("/karpenter/")}))
	for name, want := range map[string]string{
		"nodes":   "arn:aws:iam::123456789012:instance-profile/karpenter/nodes",
		"unknown": "arn:aws:iam::123456789012:instance-profile/unknown",
	} {
		out := must[*ec2.RunInstancesOutput](t)(e.ec2.RunInstances(ctx, &ec2.RunInstancesInput{ImageId: aws.String("ami-0a1b2c3d4e5f60721"),
			InstanceType: ec2types.InstanceTypeM5Large, MinCount: aws.Int32(1), MaxCount: aws.Int32(1),
			IamInstanceProfile: &ec2types.IamInstanceProfileSpecification{Name: aws.String(name)}}))
		if got := aws.ToString(out.Instances[0].IamInstanceProfile.Arn); got != want {
			t.Errorf("%s: instance profile %s, want %s", name, got, want)
		}
	}
}
