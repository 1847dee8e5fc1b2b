package sut

import (
	"net"
	"os"
	"strconv"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
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

// A child's port comes from below the ephemeral range, where no other process's bind to port 0
// can take it between the probe and the child's own bind, and it can be bound.
func TestFreePortAvoidsTheEphemeralRange(t *testing.T) {
	for range 20 {
		port, err := freePort()
		if err != nil {
			t.Fatal(err)
		}
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
