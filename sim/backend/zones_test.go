package backend

import (
	"context"
	"testing"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestSeedHostedZones: the zones are made through the Route53 API, once: a second seeding (a standalone
// fakeaws reused by another run) adds only the names the account lacks.
func TestSeedHostedZones(t *testing.T) {
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "k", SecretAccessKey: "s", Profile: "unlimited"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start(""); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cr := Creds{Region: "us-west-2", AccessKey: "k", SecretKey: "s"}
	ctx := context.Background()
	b := Local{srv}
	if err := SeedHostedZones(ctx, b, cr, []string{"a.example.com", "b.example.com"}); err != nil {
		t.Fatal(err)
	}
	if err := SeedHostedZones(ctx, b, cr, []string{"b.example.com", "c.example.com."}); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, z := range srv.HostedZones() {
		names = append(names, z.Name)
		if sets, err := srv.RecordSets(z.ID); err != nil || len(sets) != 2 {
			t.Errorf("zone %s: %d record sets (%v), want SOA and NS", z.Name, len(sets), err)
		}
	}
	want := map[string]bool{"a.example.com.": true, "b.example.com.": true, "c.example.com.": true}
	if len(names) != len(want) {
		t.Fatalf("zones %v, want %v", names, want)
	}
	for _, n := range names {
		if !want[n] {
			t.Fatalf("zones %v, want %v", names, want)
		}
	}
	creates := 0
	for _, c := range srv.Recorder().Calls() {
		if c.Operation == "CreateHostedZone" {
			creates++
		}
	}
	if creates != 3 {
		t.Errorf("%d CreateHostedZone calls, want 3", creates)
	}
}
