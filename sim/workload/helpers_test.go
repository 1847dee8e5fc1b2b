package workload_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

var fleetSeq atomic.Int32

type testFleet struct {
	*workload.FleetPlan
	aws      *awsEnv
	run      map[string]string
	stats    workload.Stats
	progress *bytes.Buffer
}

// createFleet plans and creates a fleet in its own namespaces, node range and fakeaws; tweaks
// change the Options before Create.
func createFleet(t *testing.T, spec workload.Spec, seed uint64, tweaks ...func(*workload.Options)) *testFleet {
	t.Helper()
	k8s := cluster(t).Client
	i := fleetSeq.Add(1)
	spec.NamespacePrefix = fmt.Sprintf("t%02d", i)
	spec.NodeCIDR = fmt.Sprintf("10.0.%d.0/24", 200+i)
	tf := &testFleet{FleetPlan: workload.Plan(spec, seeded(seed)), aws: newAWS(t), progress: &bytes.Buffer{},
		run: map[string]string{"restartsim.io/run": spec.NamespacePrefix}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	opts := workload.Options{
		Client: k8s, AWS: tf.aws, Labels: tf.run, Progress: tf.progress, ProgressInterval: 50 * time.Millisecond,
		ContainerRestartDelay: 300 * time.Millisecond,
	}
	for _, tweak := range tweaks {
		tweak(&opts)
	}
	tf.stats, err = tf.Create(ctx, opts)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(tf.Close)
	return tf
}

func (tf *testFleet) desired(t *testing.T) map[types.NamespacedName]tgbexpect.DesiredTGB {
	t.Helper()
	k8s := cluster(t).Client
	d, err := tgbexpect.Desired(context.Background(), k8s, client.MatchingLabels(tf.run))
	if err != nil {
		t.Fatalf("Desired: %v", err)
	}
	return d
}

// applied returns before + register − deregister, sorted like Desired's targets.
func applied(before []tgbexpect.Target, ch workload.FleetChange) []tgbexpect.Target {
	out := slices.DeleteFunc(slices.Clone(before), func(x tgbexpect.Target) bool { return slices.Contains(ch.Deregister, x) })
	out = append(out, ch.Register...)
	sortTargets(out)
	return out
}

func sortTargets(ts []tgbexpect.Target) {
	slices.SortFunc(ts, func(a, b tgbexpect.Target) int {
		if a.ID != b.ID {
			if a.ID < b.ID {
				return -1
			}
			return 1
		}
		return int(a.Port - b.Port)
	})
}
