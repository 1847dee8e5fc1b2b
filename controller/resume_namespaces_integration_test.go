package controller

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/internal/testwait"
)

// TestResumeAcrossNamespaces: a controller limited to two namespaces replays both through one
// cluster-wide watch per kind, or through one watch per namespace when RBAC grants it no
// cluster-wide watch. Either way it applies a change in its namespaces before its caches sync,
// and ignores a change in a namespace it does not manage.
func TestResumeAcrossNamespaces(t *testing.T) {
	for _, tc := range []struct {
		name       string
		restricted bool
		// the fast path's watches: "<kind>" cluster-wide, "<namespace>/<kind>", "403 <kind>"; Nodes
		// are cluster-scoped, watched once
		want []string
	}{
		{name: "cluster-wide", want: []string{"endpointslices", "nodes", "pods", "services", "targetgroupbindings"}},
		{name: "rbac-per-namespace", restricted: true, want: []string{"403 endpointslices", "403 pods", "403 services", "403 targetgroupbindings",
			"A/endpointslices", "A/pods", "A/services", "A/targetgroupbindings", "B/endpointslices", "B/pods", "B/services", "B/targetgroupbindings", "nodes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nsA, nsB, other := newNamespace(t), newNamespace(t), newNamespace(t)
			restCfg := cfg
			if tc.restricted {
				restCfg = restrictedTo(t, nsA, nsB)
			}
			arnA := createTargetGroup(t, nsA, elbtypes.TargetTypeEnumIp)
			arnB := createTargetGroup(t, nsB, elbtypes.TargetTypeEnumIp)
			arnO := createTargetGroup(t, other, elbtypes.TargetTypeEnumIp)
			backend(t, nsA, "a", 50, 2)
			epsB := backend(t, nsB, "b", 51, 2)
			epsO := backend(t, other, "o", 52, 2)
			create(t, mkTGB(nsA, "a", "a", arnA, v1beta1.TargetTypeIP), mkTGB(nsB, "b", "b", arnB, v1beta1.TargetTypeIP),
				mkTGB(other, "o", "o", arnO, v1beta1.TargetTypeIP))
			opts := resumeOptions(nsA)
			opts.Namespaces = []string{nsA, nsB}

			first, _ := startManagerAs(t, restCfg, opts, nil)
			for _, k := range [][2]string{{nsA, "a"}, {nsB, "b"}} {
				testwait.Until(t, 10*time.Second, "checkpoint "+k[1], func() bool { return checkpoint.IsSet(getTGB(t, k[0], k[1]).Annotations) })
			}
			waitWatermark(t, nsA, time.Now())
			first.stop()
			w, _, err := ReadWatermark(context.Background(), k8s, nsA, DefaultLeaderElectionID)
			if err != nil {
				t.Fatal(err)
			}

			newB := append([]epRef{epsB[0]}, epRef{pod: epsB[1].pod, ip: "10.0.51.99", ready: true})
			setSliceEndpoints(t, nsB, "b-slice", newB...)
			setSliceEndpoints(t, other, "o-slice", append(epsO, epRef{pod: epsO[0].pod, ip: "10.0.52.99", ready: true})...)
			since := aws_.Recorder().Len()
			watches := &watchLog{rv: w.ResourceVersion, short: strings.NewReplacer(nsA, "A", nsB, "B")}
			traced := rest.CopyConfig(restCfg)
			traced.Wrap(watches.wrap)
			slow := &slowPodLists{delay: 3 * time.Second}
			second, _ := startManagerAs(t, traced, opts, holdCaches(slow))

			registered := firstCall(since, arnB, "RegisterTargets")
			if released := slow.released(); registered.IsZero() || !registered.Before(released) {
				t.Fatalf("b registered at %v, pod lists released at %v: want the fast path before the caches synced", registered, released)
			}
			if got := watches.sorted(); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("fast-path watches %q, want %q", got, tc.want)
			}
			// Events from before the stop may replay a and b as early exits; only b changed.
			full := testutil.ToFloat64(second.c.metrics.ResumeReconciles.WithLabelValues(metrics.ResultFull))
			failed := testutil.ToFloat64(second.c.metrics.ResumeReconciles.WithLabelValues(metrics.ResultError))
			if full != 1 || failed != 0 {
				t.Errorf("fast-path full reconciles = %v, failed = %v: want b's alone", full, failed)
			}
			testwait.Until(t, 10*time.Second, "b's targets", func() bool { return sameSet(liveTargets(t, arnB), targetKeys(newB)...) })
			if calls := callsFor(since, arnO); len(calls) != 0 {
				t.Fatalf("a binding outside the controller's namespaces made %d AWS calls: %+v", len(calls), calls)
			}
		})
	}
}

// firstCall is when the first AWS call op on arn since the recorder position since was made.
func firstCall(since int, arn, op string) time.Time {
	for _, c := range callsFor(since, arn) {
		if c.Operation == op {
			return c.Time
		}
	}
	return time.Time{}
}

// watchLog records the watches started from the resource version rv (the fast path's: the
// informers watch from their lists' versions).
type watchLog struct {
	rv    string
	short *strings.Replacer

	mu  sync.Mutex
	got []string
}

func (l *watchLog) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		q := req.URL.Query()
		if q.Get("watch") != "true" || q.Get("resourceVersion") != l.rv {
			return resp, err
		}
		entry := watchedPath(req.URL)
		if err == nil && resp.StatusCode == http.StatusForbidden {
			entry = "403 " + entry
		}
		l.mu.Lock()
		l.got = append(l.got, l.short.Replace(entry))
		l.mu.Unlock()
		return resp, err
	})
}

func (l *watchLog) sorted() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.got...)
	slices.Sort(out)
	return out
}

// watchedPath is "<namespace>/<resource>" or "<resource>" for a cluster-wide watch.
func watchedPath(u *url.URL) string {
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	resource := parts[len(parts)-1]
	for i, p := range parts {
		if p == "namespaces" && i+1 < len(parts)-1 {
			return parts[i+1] + "/" + resource
		}
	}
	return resource
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// restrictedTo is the test API server's config for a user who may read and write the controller's
// kinds in the given namespaces only (and read Nodes): the RBAC of a namespaced installation.
func restrictedTo(t *testing.T, namespaces ...string) *rest.Config {
	t.Helper()
	user := "restricted-" + namespaces[0]
	subjects := []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}
	rw := []string{"get", "list", "watch", "create", "update", "patch"}
	nodes := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get", "list", "watch"}}}}
	create(t, nodes, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user}, Subjects: subjects,
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user}})
	for _, ns := range namespaces {
		create(t, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"services", "pods", "pods/status", "configmaps", "events"}, Verbs: rw},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: rw},
			{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: rw},
			{APIGroups: []string{v1beta1.GroupVersion.Group}, Resources: []string{"targetgroupbindings", "targetgroupbindings/status"}, Verbs: rw},
		}}, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user}, Subjects: subjects,
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user}})
	}
	c := rest.CopyConfig(cfg)
	c.Impersonate = rest.ImpersonationConfig{UserName: user}
	return c
}
