package fakeaws_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/fakeaws"
)

// BenchmarkDescribeTargetHealth measures unthrottled DescribeTargetHealth (20 targets) through the SDK against
// fakeaws and, in the same run, against a bare net/http handler returning a fixed copy of the same response.
// It reports "ratio" = bare ns/op ÷ fakeaws ns/op (1 = no overhead; the goal is ≥ 0.5).
func BenchmarkDescribeTargetHealth(b *testing.B) {
	e := newEnv(b, fakeaws.Options{Clock: clock.RealClock{}})
	arn := e.createTG(b, "bench", "ip", 80)
	var ts []elbtypes.TargetDescription
	for i := range 20 {
		ts = append(ts, elbtypes.TargetDescription{Id: aws.String(fmt.Sprintf("10.0.7.%d", i+1))})
	}
	if _, err := e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: ts}); err != nil {
		b.Fatal(err)
	}
	// Capture one real response body for the bare handler.
	var fixed []byte
	capture := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, r)
		fixed = rec.Body.Bytes()
		w.WriteHeader(rec.Code)
		_, _ = w.Write(fixed)
	}))
	cfg := clientConfig(capture.URL, testKey, testSecret)
	if _, err := elb.NewFromConfig(cfg).DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)}); err != nil {
		b.Fatal(err)
	}
	capture.Close()
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(fixed)))
		_, _ = w.Write(fixed)
	}))
	defer bare.Close()
	bareClient := elb.NewFromConfig(clientConfig(bare.URL, testKey, testSecret))
	in := &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)}
	run := func(c *elb.Client, n int) time.Duration {
		start := time.Now()
		for range n {
			out, err := c.DescribeTargetHealth(ctx, in)
			if err != nil || len(out.TargetHealthDescriptions) != 20 {
				b.Fatalf("%v (%d targets)", err, len(out.TargetHealthDescriptions))
			}
		}
		return time.Since(start)
	}
	run(e.elb, 50) // warm both connections
	run(bareClient, 50)
	b.ResetTimer()
	// Interleave halves so both sides see the same machine load.
	var fakeT, bareT time.Duration
	half := max(b.N/2, 1)
	fakeT += run(e.elb, half)
	bareT += run(bareClient, half)
	fakeT += run(e.elb, b.N-half)
	bareT += run(bareClient, b.N-half)
	b.StopTimer()
	b.ReportMetric(float64(bareT.Nanoseconds())/float64(fakeT.Nanoseconds()), "ratio")
	b.ReportMetric(float64(fakeT.Nanoseconds())/float64(b.N), "fake-ns/op")
	b.ReportMetric(float64(bareT.Nanoseconds())/float64(b.N), "bare-ns/op")
}
