package sim

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func TestMain(m *testing.M) {
	if os.Getenv(widgetControllerEnv) != "" {
		os.Exit(widgetControllerMain())
	}
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
