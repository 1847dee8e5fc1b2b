package controller

import (
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/internal/testwait"
)

// TestStandbyTakeoverSeesChangesMadeWhileStandby: a standby replica's informers (all of them,
// see warmInformers) sync long before it leads; when it takes over, controller-runtime replays
// their stores as initial-list events, which the secondary handlers skip. Changes made while it
// was standby — an EndpointSlice changed, a binding and its backend created — must still be
// reconciled, through each binding's own initial-list event.
func TestStandbyTakeoverSeesChangesMadeWhileStandby(t *testing.T) {
	ns := newNamespace(t)
	arnA := createTargetGroup(t, ns+"-a", elbtypes.TargetTypeEnumIp)
	arnB := createTargetGroup(t, ns+"-b", elbtypes.TargetTypeEnumIp)
	epsA := backend(t, ns, "a", 50, 2)
	create(t, mkTGB(ns, "a", "a", arnA, v1beta1.TargetTypeIP))
	opts := testOptions(CheckpointAnnotation)
	opts.LeaderElection, opts.LeaderElectionNamespace, opts.LeaderElectionID = true, ns, "tgb-"+ns

	leader, _ := startReplica(t, ns, opts, false) // crashes: never releases the lease
	testwait.Until(t, 10*time.Second, "checkpoint a", func() bool { return checkpoint.IsSet(getTGB(t, ns, "a").Annotations) })
	standby, elected := startReplica(t, ns, opts, true)
	select {
	case <-elected:
		t.Fatal("standby elected while the leader holds the lease")
	case <-time.After(500 * time.Millisecond):
	}
	leader.stop()

	// While nobody leads (the lease runs out after 3 s): a's endpoints change, b appears.
	newA := []epRef{epsA[0], {pod: epsA[1].pod, ip: "10.0.50.99", ready: true}}
	setSliceEndpoints(t, ns, "a-slice", newA...)
	epsB := backend(t, ns, "b", 51, 2)
	create(t, mkTGB(ns, "b", "b", arnB, v1beta1.TargetTypeIP))
	select {
	case <-elected:
		t.Fatal("standby elected before the changes were made: the test would not cover them")
	default:
	}

	testwait.Until(t, 20*time.Second, "standby elected", func() bool {
		select {
		case <-elected:
			return true
		default:
			return false
		}
	})
	testwait.Until(t, 10*time.Second, "a re-registered", func() bool { return sameSet(liveTargets(t, arnA), targetKeys(newA)...) })
	testwait.Until(t, 10*time.Second, "b registered", func() bool { return sameSet(liveTargets(t, arnB), targetKeys(epsB)...) })
	for _, n := range []string{"a", "b"} {
		testwait.Until(t, 10*time.Second, "checkpoint "+n, func() bool { return checkpoint.IsSet(getTGB(t, ns, n).Annotations) })
	}
	if standby.c.initialSkipped.Load() == 0 {
		t.Fatal("no secondary initial-list event was skipped: the takeover did not take the optimised path")
	}
}

// startReplica starts a controller with leader election on short lease timings; release says
// whether it gives the lease up when stopped. It returns the replica and its Elected channel.
func startReplica(t *testing.T, ns string, opts Options, release bool) (*running, <-chan struct{}) {
	t.Helper()
	r, mgr := startManager(t, ns, opts, func(mo *manager.Options) {
		mo.LeaderElectionReleaseOnCancel = release
		mo.LeaseDuration, mo.RenewDeadline, mo.RetryPeriod = ptr.To(3*time.Second), ptr.To(2*time.Second), ptr.To(200*time.Millisecond)
	})
	return r, mgr.Elected()
}
