package controller

import (
	"context"
	"math"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/internal/testwait"
)

// hasEvent reports whether a Warning event with reason regards the binding.
func hasEvent(t *testing.T, ns, tgb, reason string) bool {
	t.Helper()
	var list eventsv1.EventList
	if err := k8s.List(context.Background(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	for _, e := range list.Items {
		if e.Regarding.Name == tgb && e.Reason == reason && e.Type == corev1.EventTypeWarning {
			return true
		}
	}
	return false
}

// expectBindingError waits for Ready=False with reason and its event, then checks that the
// controller keeps running and retries with backoff (a few retries, not a hot loop).
func expectBindingError(t *testing.T, r *running, ns, name, reason string) {
	t.Helper()
	testwait.Until(t, 10*time.Second, "Ready=False "+reason, func() bool { return readyReason(t, ns, name) == reason })
	testwait.Until(t, 10*time.Second, "event "+reason, func() bool { return hasEvent(t, ns, name, reason) })
	errs := func() float64 { return testutil.ToFloat64(r.c.metrics.Reconciles.WithLabelValues(metrics.ResultError)) }
	first, since := errs(), time.Now()
	testwait.Until(t, 10*time.Second, "four retries", func() bool { return errs() >= first+4 })
	retries, took := errs()-first, time.Since(since)
	// The work queue's per-item backoff doubles from 5 ms, so took holds at most log2(took/5ms + 1)
	// backoff delays (a slow machine only lengthens took); a hot loop retries far more often. The
	// slack of 2 is the retry already due when counting began and one an event brings forward.
	if limit := math.Log2(float64(took)/float64(5*time.Millisecond)+1) + 2; retries > limit {
		t.Fatalf("%v retries in %v, more than the backoff allows (%.1f): a hot loop", retries, took, limit)
	}
	select {
	case err := <-r.done:
		t.Fatalf("manager stopped: %v", err)
	default:
	}
	for _, c := range getTGB(t, ns, name).Status.Conditions {
		if c.Type == ConditionReady && (c.Status != "False" || c.Message == "") {
			t.Fatalf("condition %+v", c)
		}
	}
}

func TestMissingService(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
	r := startController(t, ns, testOptions(CheckpointAnnotation))
	expectBindingError(t, r, ns, "web", ReasonServiceNotFound)

	eps := backend(t, ns, "web", 93, 2) // the Service appears
	testwait.Until(t, 10*time.Second, "targets registered", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
	testwait.Until(t, 10*time.Second, "Ready=True", func() bool { return readyReason(t, ns, "web") == "Reconciled" })
}

func TestMissingServicePort(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	eps := backend(t, ns, "web", 94, 2)
	tgb := mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP)
	tgb.Spec.ServiceRef.Port = intstr.FromInt32(81)
	create(t, tgb)
	r := startController(t, ns, testOptions(CheckpointAnnotation))
	expectBindingError(t, r, ns, "web", ReasonServicePortNotFound)
	if len(liveTargets(t, arn)) != 0 {
		t.Fatal("targets registered for a missing port")
	}

	svc := &corev1.Service{}
	if err := k8s.Get(context.Background(), clientKey(ns, "web"), svc); err != nil {
		t.Fatal(err)
	}
	svc.Spec.Ports[0].Port = 81 // the port appears
	if err := k8s.Update(context.Background(), svc); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 10*time.Second, "targets registered", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
	testwait.Until(t, 10*time.Second, "Ready=True", func() bool { return readyReason(t, ns, "web") == "Reconciled" })
}

func TestMissingTargetGroup(t *testing.T) {
	for _, byName := range []bool{false, true} {
		name := "arn"
		if byName {
			name = "name"
		}
		t.Run(name, func(t *testing.T) {
			ns := newNamespace(t)
			backend(t, ns, "web", 95, 1)
			arn := "arn:aws:elasticloadbalancing:" + testRegion + ":123456789012:targetgroup/missing/0123456789abcdef"
			tgb := mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP)
			if byName {
				tgb.Spec.TargetGroupARN, tgb.Spec.TargetType, tgb.Spec.TargetGroupName = "", nil, "missing-"+ns
			}
			create(t, tgb)
			r := startController(t, ns, testOptions(CheckpointAnnotation))
			expectBindingError(t, r, ns, "web", ReasonTargetGroupNotFound)
		})
	}
}
