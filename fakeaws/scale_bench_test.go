package fakeaws_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/fakeaws"
)

// scaleEnv is a server holding groups target groups and enis pod ENIs (one IP each) next to 100 instances.
type scaleEnv struct {
	*env
	arns []string // every group, in creation order
	hot  []string // 100 groups with 3 registered targets each
	ips  []string // every pod IP
	ids  []string // every instance ID
}

func newScaleEnv(b *testing.B, groups, enis int) *scaleEnv {
	e := &scaleEnv{env: newEnv(b, fakeaws.Options{Clock: clock.RealClock{}, MaxTargetGroups: 20_000})}
	// More transport retries than the tests allow: on a loaded machine the SDK's sporadic "use of closed
	// network connection" (see transportOnlyRetryer) can hit three attempts in a row in a long run.
	e.cfg.Retryer = func() aws.Retryer { return retry.AddWithMaxAttempts(transportOnlyRetryer(), 10) }
	e.elb, e.ec2 = elb.NewFromConfig(e.cfg), ec2.NewFromConfig(e.cfg)
	e.createGroups(b, groups)
	for i := range enis {
		ip := fmt.Sprintf("10.0.%d.%d", i/250, i%250+1)
		must[fakeaws.ENI](b)(e.srv.SeedENI(fakeaws.ENI{ID: fmt.Sprintf("eni-p%016d", i), PrivateIPs: []string{ip}}))
		e.ips = append(e.ips, ip)
	}
	for i := range 100 {
		in := must[fakeaws.Instance](b)(e.srv.SeedInstance(fakeaws.Instance{ID: fmt.Sprintf("i-%017d", i), PrivateIP: fmt.Sprintf("10.0.250.%d", i+1)}))
		e.ids = append(e.ids, in.ID)
	}
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(groups)[:100] {
		e.hot = append(e.hot, e.arns[i])
		_, err := e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(e.arns[i]), Targets: threeTargets})
		if err != nil {
			b.Fatal(err)
		}
	}
	return e
}

// createGroups creates n target groups from 4 goroutines: the SDK round trip, not the store, bounds setup time.
func (e *scaleEnv) createGroups(b *testing.B, n int) {
	e.arns = make([]string, n)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < n && errs[w] == nil; i += 4 {
				out, err := e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String(fmt.Sprintf("tg-%05d", i)),
					Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(e.srv.DefaultVPCID()), TargetType: elbtypes.TargetTypeEnumIp})
				if errs[w] = err; err == nil {
					e.arns[i] = aws.ToString(out.TargetGroups[0].TargetGroupArn)
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

var threeTargets = []elbtypes.TargetDescription{
	{Id: aws.String("10.0.200.1"), Port: aws.Int32(8080)},
	{Id: aws.String("10.0.200.2"), Port: aws.Int32(8080)},
	{Id: aws.String("10.0.200.3"), Port: aws.Int32(8080)},
}

// scaleOp is one API call against a scale environment; i varies the resource it names. It returns the time
// to count (CreateTargetGroup leaves its clean-up out).
type scaleOp func(b *testing.B, e *scaleEnv, i int) time.Duration

func timed(fn func() error) func(b *testing.B) time.Duration {
	return func(b *testing.B) time.Duration {
		start := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
}

var scaleOps = []struct {
	name, api string // sub-benchmark, recorded operation
	op        scaleOp
}{
	{"DescribeTargetHealth", "DescribeTargetHealth", func(b *testing.B, e *scaleEnv, i int) time.Duration {
		return timed(func() error {
			out, err := e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(e.hot[i%len(e.hot)])})
			if err == nil && len(out.TargetHealthDescriptions) != 3 {
				err = fmt.Errorf("%d targets", len(out.TargetHealthDescriptions))
			}
			return err
		})(b)
	}},
	{"RegisterTargets", "RegisterTargets", func(b *testing.B, e *scaleEnv, i int) time.Duration {
		return timed(func() error {
			_, err := e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(e.hot[i%len(e.hot)]), Targets: threeTargets})
			return err
		})(b)
	}},
	{"DescribeTargetGroupsByARN", "DescribeTargetGroups", func(b *testing.B, e *scaleEnv, i int) time.Duration {
		arn := e.arns[(i*7919)%len(e.arns)]
		return timed(func() error {
			out, err := e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{arn}})
			if err == nil && aws.ToString(out.TargetGroups[0].TargetGroupArn) != arn {
				err = fmt.Errorf("got %v", out.TargetGroups)
			}
			return err
		})(b)
	}},
	{"CreateTargetGroup", "CreateTargetGroup", func(b *testing.B, e *scaleEnv, i int) time.Duration {
		var arn string
		d := timed(func() error {
			arn = e.createTG(b, fmt.Sprintf("new-%d", i), "ip", 80)
			return nil
		})(b)
		if _, err := e.elb.DeleteTargetGroup(ctx, &elb.DeleteTargetGroupInput{TargetGroupArn: aws.String(arn)}); err != nil {
			b.Fatal(err) // deleted again so both servers keep their size
		}
		return d
	}},
	{"DescribeNetworkInterfacesByIP", "DescribeNetworkInterfaces", func(b *testing.B, e *scaleEnv, i int) time.Duration {
		ip := e.ips[(i*7919)%len(e.ips)]
		return timed(func() error {
			out, err := e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{
				Filters: []ec2types.Filter{{Name: aws.String("addresses.private-ip-address"), Values: []string{ip}}}})
			if err == nil && len(out.NetworkInterfaces) != 1 {
				err = fmt.Errorf("%d ENIs for %s", len(out.NetworkInterfaces), ip)
			}
			return err
		})(b)
	}},
	{"DescribeInstancesByID", "DescribeInstances", func(b *testing.B, e *scaleEnv, i int) time.Duration {
		return timed(func() error {
			out, err := e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: e.ids[i%90 : i%90+10]})
			if err == nil && len(out.Reservations) != 10 {
				err = fmt.Errorf("%d reservations", len(out.Reservations))
			}
			return err
		})(b)
	}},
}

// serverTimes returns the recorded latencies (request read to response written, real clock) of the api calls
// after the first n: the server's own share of each call, without the SDK and the client side of HTTP.
func serverTimes(e *scaleEnv, n int, api string) []time.Duration {
	var out []time.Duration
	for _, c := range e.srv.Recorder().Since(n) {
		if c.Operation == api {
			out = append(out, c.Latency)
		}
	}
	return out
}

// median is robust to the calls that other processes on the machine preempt, which a mean is not.
func median(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return math.NaN()
	}
	slices.Sort(ds)
	return float64(ds[len(ds)/2])
}

// BenchmarkScale measures per-call cost against a small server (100 target groups, 300 pod ENIs) and a large
// one (10,000 and 30,000), through the SDK over HTTP, interleaving both in one run. It reports "ratio" =
// median large ÷ median small call time (1 means the call's cost does not grow with the account; the goal is
// ≈ 1), and "srv-ratio", the same for the time spent inside the server (less diluted by the client).
func BenchmarkScale(b *testing.B) {
	small := newScaleEnv(b, 100, 300)
	large := newScaleEnv(b, 10_000, 30_000)
	for _, tc := range scaleOps {
		b.Run(tc.name, func(b *testing.B) {
			run := func(e *scaleEnv, from, n int, into *[]time.Duration) {
				for i := from; i < from+n; i++ {
					*into = append(*into, tc.op(b, e, i))
				}
			}
			var warm []time.Duration
			run(small, 0, 20, &warm) // warm connections and caches
			run(large, 0, 20, &warm)
			smallN, largeN := small.srv.Recorder().Len(), large.srv.Recorder().Len()
			runtime.GC() // settle the set-up's garbage before measuring
			b.ResetTimer()
			var smallT, largeT []time.Duration
			const rounds = 10 // alternate, and swap who goes first, so both sides see the same machine load
			for r := range rounds {
				from, n := b.N*r/rounds, b.N*(r+1)/rounds-b.N*r/rounds
				if r%2 == 0 {
					run(small, from, n, &smallT)
					run(large, from, n, &largeT)
				} else {
					run(large, from, n, &largeT)
					run(small, from, n, &smallT)
				}
			}
			b.StopTimer()
			b.ReportMetric(median(largeT)/median(smallT), "ratio")
			b.ReportMetric(median(serverTimes(large, largeN, tc.api))/median(serverTimes(small, smallN, tc.api)), "srv-ratio")
			b.ReportMetric(median(smallT), "small-ns/call")
			b.ReportMetric(median(largeT), "large-ns/call")
		})
	}
}
