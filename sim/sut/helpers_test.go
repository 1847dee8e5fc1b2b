package sut

import (
	"net"
	"os"
	"strconv"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestMain silences controller-runtime's global logger, which the in-process replicas log through; run as
// an external controller by TestExternalAWSEnvironment, the binary is that controller.
func TestMain(m *testing.M) {
	if report := os.Getenv(awsChildReport); report != "" {
		runAWSChild(report)
	}
	if addr := os.Getenv(memoryChildAddr); addr != "" {
		runMemoryChild(addr)
	}
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}

// A child's ports come from below the ephemeral range, where no other process's bind to port 0
// can take them between the probe and the child's own bind; they are distinct and can be bound.
func TestFreePortsAvoidTheEphemeralRange(t *testing.T) {
	for range 20 {
		ports, err := freePorts(3)
		if err != nil {
			t.Fatal(err)
		}
		if ports[0] == ports[1] || ports[1] == ports[2] || ports[0] == ports[2] {
			t.Fatalf("ports %v are not distinct", ports)
		}
		for _, port := range ports {
			if port < childPortMin || port >= childPortMax {
				t.Fatalf("port %d outside [%d, %d)", port, childPortMin, childPortMax)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err != nil {
				t.Fatalf("port %d cannot be bound: %v", port, err)
			}
			_ = ln.Close()
		}
	}
	// 400 draws from the 12,000 ports: released one by one, about 7 would repeat an earlier one.
	ports, err := freePorts(400)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if seen[p] {
			t.Fatalf("port %d drawn twice of 400", p)
		}
		seen[p] = true
	}
}

// startFakeAWS starts a fakeaws in us-west-2 that takes the key pair key/secret, closed when the test ends.
func startFakeAWS(t *testing.T, key, secret string) (*fakeaws.Server, string) {
	t.Helper()
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: key, SecretAccessKey: secret, AccountID: "555566667777",
		Region: "us-west-2", Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, url
}
