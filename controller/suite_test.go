package controller

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
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

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/ctrltest"
	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/internal/tgattach"
)

// One envtest API server and one fakeaws endpoint for the package; each test uses its own
// namespace (the manager caches only that namespace) and its own target groups. The API server
// starts on first use (needEnv), so the unit tests run without envtest's assets.
var (
	suite  = ctrltest.Suite{CRDs: filepath.Join("config", "crd")}
	cfg    *rest.Config
	k8s    client.Client
	scheme *runtime.Scheme
	aws_   *fakeaws.Server
	awsURL string
	elbc   *elbv2.Client
	attach *tgattach.Attacher // puts test groups behind a load balancer, so that ELBv2 health checks their targets
	nsSeq  atomic.Int32
	tgSeq  atomic.Int32
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
	elbc = elbv2.New(elbv2.Options{Region: testRegion, BaseEndpoint: aws.String(awsURL),
		Credentials: credentials.NewStaticCredentialsProvider(testKey, testKey, "")})
	attach = tgattach.New(elbc, ec2.New(ec2.Options{Region: testRegion, BaseEndpoint: aws.String(awsURL),
		Credentials: credentials.NewStaticCredentialsProvider(testKey, testKey, "")}))
	return m.Run()
}

// needEnv starts the package's envtest API server on first use and fails t if it cannot run.
func needEnv(t testing.TB) {
	t.Helper()
	env := suite.Env(t)
	cfg, k8s, scheme = env.Config, env.Client, env.Scheme
}

// testOptions are Options with durations shrunk for tests; deferral is far away unless a test sets it.
func testOptions(mode CheckpointMode) Options {
	return Options{
		Checkpoint:            mode,
		DeferralDelay:         time.Hour,
		DeferralJitter:        -1,
		RequeueDuration:       200 * time.Millisecond,
		TargetHealthCacheTTL:  time.Minute,
		SecurityGroupCacheTTL: time.Minute,
		AWS:                   AWSOptions{Region: testRegion, Endpoint: awsURL, AccessKeyID: testKey, SecretAccessKey: testKey, MaxAttempts: 3},
		Logger:                logger,
	}
}

// running is one started controller.
type running struct {
	c          *Controller
	reg        *prometheus.Registry
	reconciles *reconcileLog
	cancel     context.CancelFunc
	done       chan error
	stopped    bool
}

// reconcileLog keeps one controller's finished reconciles, in order, by binding: the positive sign a
// test waits for before it checks that a reconcile did nothing.
type reconcileLog struct {
	mu      sync.Mutex
	results map[types.NamespacedName][]string
	// requeue is the requeue each binding's last reconcile asked for (0: none).
	requeue map[types.NamespacedName]time.Duration
}

func (l *reconcileLog) record(key types.NamespacedName, result string, requeueAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.results == nil {
		l.results = map[types.NamespacedName][]string{}
		l.requeue = map[types.NamespacedName]time.Duration{}
	}
	l.results[key] = append(l.results[key], result)
	l.requeue[key] = requeueAfter
}

// last is the result of the binding's last reconcile ("" before the first) and the requeue it
// asked for.
func (l *reconcileLog) last(ns, name string) (string, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	key := types.NamespacedName{Namespace: ns, Name: name}
	rs := l.results[key]
	if len(rs) == 0 {
		return "", 0
	}
	return rs[len(rs)-1], l.requeue[key]
}

// of is the results of the binding's reconciles so far, oldest first.
func (l *reconcileLog) of(ns, name string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.results[types.NamespacedName{Namespace: ns, Name: name}])
}

// count is how many reconciles of the binding ended with one of results (any result when none given).
func (l *reconcileLog) count(ns, name string, results ...string) int {
	n := 0
	for _, r := range l.of(ns, name) {
		if len(results) == 0 || slices.Contains(results, r) {
			n++
		}
	}
	return n
}

// waitReconciled waits until the controller has finished a reconcile of each named binding of ns that
// ended with one of results (any result when none given).
func (r *running) waitReconciled(t testing.TB, ns string, names []string, results ...string) {
	t.Helper()
	for _, name := range names {
		testwait.Until(t, 10*time.Second, fmt.Sprintf("a reconcile of %s/%s ending %v", ns, name, results), func() bool {
			return r.reconciles.count(ns, name, results...) > 0
		})
	}
}

// startController builds a fresh manager and controller (like a new process) for namespace ns.
func startController(t testing.TB, ns string, opts Options, setup ...func(*Controller, context.CancelFunc)) *running {
	t.Helper()
	r, _ := startManager(t, ns, opts, nil, setup...)
	return r
}

// startManager is startController with a hook on the manager's options (nil: none); it also returns
// the manager.
func startManager(t testing.TB, ns string, opts Options, tweak func(*manager.Options), setup ...func(*Controller, context.CancelFunc)) (*running, manager.Manager) {
	t.Helper()
	needEnv(t)
	opts.Namespaces = []string{ns}
	return startManagerAs(t, cfg, opts, tweak, setup...)
}

// startManagerAs is startManager with the API server credentials of restCfg and the namespaces
// of opts.
func startManagerAs(t testing.TB, restCfg *rest.Config, opts Options, tweak func(*manager.Options), setup ...func(*Controller, context.CancelFunc)) (*running, manager.Manager) {
	t.Helper()
	needEnv(t)
	reg := prometheus.NewRegistry()
	opts.MetricsRegistry = reg
	mopts := ManagerOptions(opts, manager.Options{Scheme: scheme, Logger: logger})
	mopts.GracefulShutdownTimeout = ptr.To(5 * time.Second)
	if tweak != nil {
		tweak(&mopts)
	}
	mgr, err := ctrl.NewManager(restCfg, mopts)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(mgr, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	log := &reconcileLog{}
	c.OnReconciled(log.record)
	for _, s := range setup {
		s(c, cancel)
	}
	r := &running{c: c, reg: reg, reconciles: log, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- mgr.Start(ctx) }()
	t.Cleanup(r.stop)
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		t.Fatal("cache did not sync")
	}
	return r, mgr
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
	if len(name) > 60 {
		name = name[:60]
	}
	name = strings.TrimRight(name, "-")
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
	return name
}

// createTargetGroup creates a target group in fakeaws through the SDK.
func createTargetGroup(t testing.TB, name string, tt elbtypes.TargetTypeEnum) string {
	t.Helper()
	name = fmt.Sprintf("tg%d-%s", tgSeq.Add(1), name)
	if len(name) > 32 {
		name = name[:32]
	}
	name = strings.Trim(name, "-")
	out, err := elbc.CreateTargetGroup(context.Background(), &elbv2.CreateTargetGroupInput{
		Name: aws.String(name), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80),
		VpcId: aws.String(aws_.DefaultVPCID()), TargetType: tt,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := attach.Attach(context.Background(), out.TargetGroups[0]); err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.TargetGroups[0].TargetGroupArn)
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

// callsFor returns the recorded calls since seq for one target group (all groups when arn is "").
func callsFor(since int, arn string) []fakeaws.Call {
	var out []fakeaws.Call
	for _, c := range aws_.Recorder().Since(since) {
		if arn == "" || c.TargetGroupARN == arn {
			out = append(out, c)
		}
	}
	return out
}

// fixture objects ---------------------------------------------------------------------------

func mkService(ns, name string, nodePort int32) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
	if nodePort != 0 {
		svc.Spec.Type = corev1.ServiceTypeNodePort
		svc.Spec.Ports[0].NodePort = nodePort
	}
	return svc
}

func mkPod(ns, name string, gates ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}}
	for _, g := range gates {
		p.Spec.ReadinessGates = append(p.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: corev1.PodConditionType(g)})
	}
	return p
}

// epRef is one endpoint: pod name, IP and readiness.
type epRef struct {
	pod, ip string
	ready   bool
}

func mkSlice(ns, name, svc string, eps ...epRef) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	s.Endpoints = endpointsOf(eps...)
	return s
}

func endpointsOf(eps ...epRef) []discoveryv1.Endpoint {
	out := []discoveryv1.Endpoint{}
	for _, e := range eps {
		out = append(out, discoveryv1.Endpoint{Addresses: []string{e.ip}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(e.ready)},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: e.pod}})
	}
	return out
}

func mkTGB(ns, name, svc, arn string, tt v1beta1.TargetType) *v1beta1.TargetGroupBinding {
	return &v1beta1.TargetGroupBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: v1beta1.TargetGroupBindingSpec{TargetGroupARN: arn, TargetType: &tt,
			ServiceRef: v1beta1.ServiceReference{Name: svc, Port: intstr.FromInt32(80)}}}
}

func create(t testing.TB, objs ...client.Object) {
	t.Helper()
	for _, o := range objs {
		if err := k8s.Create(context.Background(), o); err != nil {
			t.Fatalf("create %T %s: %v", o, o.GetName(), err)
		}
	}
}

// backend creates a Service, n pods with containers ready, and one EndpointSlice of ready
// endpoints with IPs 10.0.<third>.<i+1>; it returns the endpoint refs.
func backend(t testing.TB, ns, svc string, third, n int, gates ...string) []epRef {
	t.Helper()
	create(t, mkService(ns, svc, 0))
	var eps []epRef
	for i := 0; i < n; i++ {
		p := mkPod(ns, fmt.Sprintf("%s-%d", svc, i), gates...)
		create(t, p)
		setContainersReady(t, p, true)
		eps = append(eps, epRef{pod: p.Name, ip: fmt.Sprintf("10.0.%d.%d", third+i/250, i%250+1), ready: true})
	}
	create(t, mkSlice(ns, svc+"-slice", svc, eps...))
	return eps
}

func setContainersReady(t testing.TB, p *corev1.Pod, ready bool) {
	t.Helper()
	ctx := context.Background()
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
		t.Fatal(err)
	}
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	orig := p.DeepCopy()
	found := false
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.ContainersReady {
			p.Status.Conditions[i].Status = st
			found = true
		}
	}
	if !found {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.ContainersReady, Status: st})
	}
	if err := k8s.Status().Patch(ctx, p, client.StrategicMergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
}

func setSliceEndpoints(t *testing.T, ns, name string, eps ...epRef) {
	t.Helper()
	ctx := context.Background()
	s := &discoveryv1.EndpointSlice{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
		t.Fatal(err)
	}
	s.Endpoints = endpointsOf(eps...)
	if err := k8s.Update(ctx, s); err != nil {
		t.Fatal(err)
	}
}

func getTGB(t testing.TB, ns, name string) *v1beta1.TargetGroupBinding {
	t.Helper()
	tgb := &v1beta1.TargetGroupBinding{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, tgb); err != nil {
		t.Fatal(err)
	}
	return tgb
}

func targetKeys(eps []epRef) []string {
	var out []string
	for _, e := range eps {
		out = append(out, e.ip+":8080")
	}
	return out
}

func clientKey(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }
