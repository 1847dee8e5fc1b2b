package lbdeploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/restartsim/restartsim/controller/lbdeploy"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
)

const cluster = "sim"

var ctx = context.Background()

type env struct {
	srv *fakeaws.Server
	elb *elbv2.Client
	ec2 *ec2.Client
	dep *lbdeploy.Deployer
}

// The ACM certificates the tests' listeners name; newEnv's account holds them.
const (
	certificateOne = "arn:aws:acm:us-west-2:123456789012:certificate/one"
	certificateTwo = "arn:aws:acm:us-west-2:123456789012:certificate/two"
)

// newEnv starts a fakeaws server on loopback that never throttles, and a deployer over real SDK clients.
func newEnv(t *testing.T) *env {
	t.Helper()
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "AKIDTEST", SecretAccessKey: "test-secret", Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	// The account holds the certificates the tests' HTTPS and TLS listeners name.
	for _, arn := range []string{certificateOne, certificateTwo} {
		if _, err := srv.SeedCertificate(fakeaws.CertificateSeed{ARN: arn, Domain: "shop.example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cfg := aws.Config{
		Region: "us-west-2", BaseEndpoint: aws.String(url), Retryer: transportRetryer,
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "test-secret", ""),
	}
	e := &env{srv: srv, elb: elbv2.NewFromConfig(cfg), ec2: ec2.NewFromConfig(cfg)}
	e.dep, err = lbdeploy.New(lbdeploy.Config{ClusterName: cluster, VpcID: srv.DefaultVPCID(), ELB: e.elb, EC2: e.ec2})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// transportRetryer retries only failures without an AWS error code (a dropped connection), so each AWS error
// reaches the test as it is and every recorded call is one the deployer made.
func transportRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.RateLimiter = ratelimit.None
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.Retryables = []retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			var ae smithy.APIError
			return aws.BoolTernary(!errors.As(err, &ae))
		})}
	})
}

// operations returns the operations recorded since call n, in order.
func (e *env) operations(n int) []string {
	var ops []string
	for _, c := range e.srv.Recorder().Since(n) {
		ops = append(ops, c.Operation)
	}
	return ops
}

func mutations(ops []string) []string {
	var out []string
	for _, op := range ops {
		if !strings.HasPrefix(op, "Describe") {
			out = append(out, op)
		}
	}
	return out
}

func count(ops []string, op string) int {
	n := 0
	for _, o := range ops {
		if o == op {
			n++
		}
	}
	return n
}

func (e *env) deploy(t *testing.T, st lbmodel.Stack) lbdeploy.Result {
	t.Helper()
	res, err := e.dep.Deploy(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func service(ns, name string, targetPort int32) corev1.Service {
	return corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{
			Name: "http", Port: 80, TargetPort: intstr.FromInt32(targetPort), Protocol: corev1.ProtocolTCP,
		}}},
	}
}

func path(p, svc string) networkingv1.HTTPIngressPath {
	pt := networkingv1.PathTypePrefix
	return networkingv1.HTTPIngressPath{Path: p, PathType: &pt, Backend: networkingv1.IngressBackend{
		Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}}
}

// shop is an HTTP ALB Ingress routing /cart and /catalog of shop.example.com to two IP-target Services.
type shop struct {
	ing      networkingv1.Ingress
	services []corev1.Service
	secrets  []corev1.Secret
}

func newShop() *shop {
	return &shop{
		ing: networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: map[string]string{lbmodel.AnnotationTargetType: "ip"}},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "shop.example.com",
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
					Paths: []networkingv1.HTTPIngressPath{path("/cart", "cart"), path("/list", "catalog")}}}}}},
		},
		services: []corev1.Service{service("shop", "cart", 8080), service("shop", "catalog", 9090)},
	}
}

func (s *shop) stack(t *testing.T) lbmodel.Stack {
	t.Helper()
	st, _, err := lbmodel.BuildIngress(lbmodel.IngressInput{ClusterName: cluster, Services: s.services, Secrets: s.secrets,
		Group: lbmodel.IngressGroup{ID: lbmodel.GroupID(&s.ing), Members: []networkingv1.Ingress{*s.ing.DeepCopy()}}})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
