package lb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/ctrltest"
	"github.com/restartsim/restartsim/internal/testwait"
)

// The load balancer reconcilers are tested as they run: inside a controller.New with
// LoadBalancers on, whose TargetGroupBinding controller binds the stacks' targets. One envtest API
// server (started on first use) and one fakeaws endpoint serve the package; each test has its own
// namespace, which its manager alone caches, and its own cluster name (lbTestOptions).
var (
	suite  = ctrltest.Suite{CRDs: filepath.Join("..", "config", "crd")}
	cfg    *rest.Config
	k8s    client.Client
	scheme *runtime.Scheme
	aws_   *fakeaws.Server
	awsURL string
	nsSeq  atomic.Int32
	logger logr.Logger
)

const (
	testRegion = ctrltest.Region
	testKey    = ctrltest.Key
)

func TestMain(m *testing.M) { os.Exit(runSuite(m)) }

func runSuite(m *testing.M) int {
	if err := suite.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer suite.Stop()
	aws_, awsURL, logger = suite.AWS, suite.AWSURL, suite.Logger
	// The account holds the certificate the test Ingresses' HTTPS listeners name.
	if _, err := aws_.SeedCertificate(fakeaws.CertificateSeed{ARN: testCertificate, Domain: "shop.example.com"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// needEnv starts the package's envtest API server on first use and fails t if it cannot run.
func needEnv(t testing.TB) {
	t.Helper()
	env := suite.Env(t)
	cfg, k8s, scheme = env.Config, env.Client, env.Scheme
}

// testOptions are controller.Options with durations shrunk for tests; deferral is far away.
func testOptions(mode controller.CheckpointMode) controller.Options {
	return controller.Options{
		Checkpoint:            mode,
		DeferralDelay:         time.Hour,
		DeferralJitter:        -1,
		RequeueDuration:       200 * time.Millisecond,
		TargetHealthCacheTTL:  time.Minute,
		SecurityGroupCacheTTL: time.Minute,
		AWS: controller.AWSOptions{Region: testRegion, Endpoint: awsURL, AccessKeyID: testKey, SecretAccessKey: testKey,
			MaxAttempts: 3},
		Logger: logger,
	}
}

// running is one started controller.
type running struct {
	reg        *prometheus.Registry
	reconciled *reconciledBindings
	cancel     context.CancelFunc
	done       chan error
	stopped    bool
}

// reconciledBindings are the bindings the TargetGroupBinding controller has finished a reconcile of:
// the sign a test waits for before it checks that something did not happen.
type reconciledBindings struct {
	mu   sync.Mutex
	keys map[types.NamespacedName]bool
}

func (b *reconciledBindings) record(key types.NamespacedName, _ string, _ time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.keys[key] = true
}

func (b *reconciledBindings) has(key types.NamespacedName) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.keys[key]
}

// waitReconciled waits until the controller has finished a reconcile of each named binding of ns.
func (r *running) waitReconciled(t testing.TB, ns string, names []string) {
	t.Helper()
	for _, name := range names {
		testwait.Until(t, 10*time.Second, fmt.Sprintf("a reconcile of %s/%s", ns, name), func() bool {
			return r.reconciled.has(types.NamespacedName{Namespace: ns, Name: name})
		})
	}
}

// startController builds a fresh manager and controller (like a new process) for namespace ns.
func startController(t testing.TB, ns string, opts controller.Options) *running {
	t.Helper()
	return startManager(t, ns, opts, nil)
}

// startManager is startController with a hook on the manager's options (nil: none).
func startManager(t testing.TB, ns string, opts controller.Options, tweak func(*manager.Options)) *running {
	t.Helper()
	needEnv(t)
	opts.Namespaces = []string{ns}
	reg := prometheus.NewRegistry()
	opts.MetricsRegistry = reg
	mopts := controller.ManagerOptions(opts, manager.Options{Scheme: scheme, Logger: logger})
	mopts.GracefulShutdownTimeout = ptr.To(5 * time.Second)
	if tweak != nil {
		tweak(&mopts)
	}
	mgr, err := ctrl.NewManager(cfg, mopts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := controller.New(mgr, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	reconciled := &reconciledBindings{keys: map[types.NamespacedName]bool{}}
	c.OnReconciled(reconciled.record)
	r := &running{reg: reg, reconciled: reconciled, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- mgr.Start(ctx) }()
	t.Cleanup(r.stop)
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}
	return r
}

func (r *running) stop() {
	if r.stopped {
		return
	}
	r.stopped = true
	r.cancel()
	select {
	case <-r.done: //nolint:errcheck // the manager stopped; after a cancel its error is expected
	case <-time.After(15 * time.Second):
	}
}

// newNamespace creates a unique namespace.
func newNamespace(t testing.TB) string {
	t.Helper()
	needEnv(t)
	name := fmt.Sprintf("t%d-%s", nsSeq.Add(1), strings.ToLower(strings.NewReplacer("/", "-", "_", "-", "=", "-").Replace(t.Name())))
	name = strings.TrimRight(name[:min(len(name), 60)], "-")
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// liveTargets returns the non-draining targets of a group as "id:port".
func liveTargets(t *testing.T, arn string) map[string]bool {
	t.Helper()
	hs, err := aws_.Targets(arn)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, h := range hs {
		if h.State != fakeaws.HealthDraining {
			out[fmt.Sprintf("%s:%d", h.Target.ID, h.Target.Port)] = true
		}
	}
	return out
}

func sameSet(got map[string]bool, want ...string) bool {
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		if !got[w] {
			return false
		}
	}
	return true
}

func create(t testing.TB, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// backend creates Service svc (port 80 to 8080), n pods with containers ready, and one EndpointSlice
// of their ready endpoints with IPs 10.0.<third>.<i+1>; it returns the IPs.
func backend(t testing.TB, ns, svc string, third, n int) []string {
	t.Helper()
	create(t, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: svc},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}})
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: svc + "-slice", Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080), Protocol: ptr.To(corev1.ProtocolTCP)}},
		Endpoints:   []discoveryv1.Endpoint{},
	}
	var ips []string
	for i := range n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-%d", svc, i)},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}}
		create(t, p)
		orig := p.DeepCopy()
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}}
		if err := k8s.Status().Patch(context.Background(), p, client.StrategicMergeFrom(orig)); err != nil {
			t.Fatal(err)
		}
		ip := fmt.Sprintf("10.0.%d.%d", third+i/250, i%250+1)
		ips = append(ips, ip)
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip},
			Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: p.Name}})
	}
	create(t, slice)
	return ips
}

// targetKeys are the targets of the backend IPs, "ip:8080".
func targetKeys(ips []string) []string {
	var out []string
	for _, ip := range ips {
		out = append(out, ip+":8080")
	}
	return out
}

func clientKey(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }
