package backend

import (
	"context"
	"testing"
	"time"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
)

// TestRemoteAdmin drives a standalone fakeaws through the admin HTTP client the sim uses for
// --aws-endpoint, and checks it against the server's Go API.
func TestRemoteAdmin(t *testing.T) {
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "k", SecretAccessKey: "s"})
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cr := Creds{Region: "us-west-2", AccessKey: "k", SecretKey: "s"}
	r, err := NewRemote(url, cr)
	if err != nil {
		t.Fatal(err)
	}
	p := NewProvisioner(r, cr)
	ctx := context.Background()
	arn, err := p.CreateTargetGroup(ctx, "tg-1", v1beta1.TargetTypeIP, 80, "")
	if err != nil {
		t.Fatal(err)
	}
	sg, err := p.CreateSecurityGroup(ctx, "sg-a", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SeedENI(ctx, "eni-1", []string{"10.0.9.9"}, []string{sg}); err != nil {
		t.Fatal(err)
	}
	// A certificate seeds through the admin API; again for the same domain is no error (a standalone
	// server keeps an earlier run's), for another domain it is.
	const cert = "arn:aws:acm:us-west-2:123456789012:certificate/0c1d2e3f-aaaa-bbbb-cccc-0123456789ab"
	for range 2 {
		if err := p.SeedCertificate(ctx, cert, "shop.example.com"); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.SeedCertificate(ctx, cert, "other.example.com"); err == nil {
		t.Fatal("the certificate was seeded again for another domain")
	}
	if cs := srv.Certificates(); len(cs) != 1 || cs[0].ARN != cert || cs[0].Status != "ISSUED" {
		t.Fatalf("certificates: %+v", cs)
	}
	if ts, err := r.Targets(arn); err != nil || len(ts) != 0 {
		t.Fatalf("targets: %v %v", ts, err)
	}
	if g, err := r.SecurityGroup(sg); err != nil || g.ID != sg {
		t.Fatalf("security group: %+v %v", g, err)
	}
	calls, err := r.CallsSince(0)
	if err != nil || len(calls) != len(srv.Recorder().Calls()) {
		t.Fatalf("calls: %d %v, want %d", len(calls), err, len(srv.Recorder().Calls()))
	}
	for _, f := range []func() error{
		func() error { return r.SetProfile(fakeaws.ProfileAWSDocumented) },
		func() error { return r.SetLimit("RegisterTargets", 1, 1) },
		func() error { return r.SetLatency(fakeaws.AllOperations, time.Millisecond, 0) },
		func() error { return r.SetErrorRate("RegisterTargets", 0.5, "ServiceUnavailable") },
		func() error { return r.AddOutage(srv.Now(), time.Second) },
		func() error { return r.SetHealthTiming(time.Second, time.Second) },
	} {
		if err := f(); err != nil {
			t.Fatal(err)
		}
	}
	if srv.Profile() != fakeaws.ProfileAWSDocumented {
		t.Errorf("profile = %s", srv.Profile())
	}
}
