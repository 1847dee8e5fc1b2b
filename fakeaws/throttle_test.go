package fakeaws_test

import (
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testwait"
)

func isThrottle(err error) bool {
	return retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) == aws.TrueTernary
}

func TestThrottleBucketsExact(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileAWSDocumented})
	arn := e.createTG(t, "tg", "ip", 80)
	register := func(i int) error {
		_, err := e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn),
			Targets: []elbtypes.TargetDescription{{Id: aws.String(fmt.Sprintf("10.0.9.%d", i%250+1))}}})
		return err
	}
	ok := 0
	for i := range 25 {
		if err := register(i); err == nil {
			ok++
		} else if apiCode(err) != "Throttling" || !isThrottle(err) || httpStatus(err) != 400 {
			t.Fatalf("throttled call: %v (status %d)", err, httpStatus(err))
		}
	}
	if ok != 20 {
		t.Fatalf("accepted %d of 25 at one instant, want the burst of 20", ok)
	}
	// Registration and deregistration share the bucket.
	_, err := e.elb.DeregisterTargets(ctx, &elb.DeregisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: []elbtypes.TargetDescription{{Id: aws.String("10.0.9.1")}}})
	wantCode(t, err, "Throttling")
	e.clock.Step(time.Second) // refill 4
	ok = 0
	for i := range 6 {
		if register(i) == nil {
			ok++
		}
	}
	if ok != 4 {
		t.Fatalf("after 1 s accepted %d, want 4", ok)
	}
	// EC2: per action; unfiltered DescribeInstances uses the 50-token bucket, filtered the 100-token one.
	count := func(fn func() error, n int) (okN int) {
		for range n {
			err := fn()
			if err == nil {
				okN++
			} else if apiCode(err) != "RequestLimitExceeded" || !isThrottle(err) || httpStatus(err) != 503 {
				t.Fatalf("ec2 throttle: %v", err)
			}
		}
		return okN
	}
	unfiltered := func() error { _, err := e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{}); return err }
	filtered := func() error {
		_, err := e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{"x"}}}})
		return err
	}
	if n := count(unfiltered, 55); n != 50 {
		t.Fatalf("unfiltered DescribeInstances accepted %d, want 50", n)
	}
	if n := count(filtered, 105); n != 100 {
		t.Fatalf("filtered DescribeInstances accepted %d, want 100", n)
	}
	vpcs := func() error { _, err := e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}); return err }
	if n := count(vpcs, 10); n != 10 {
		t.Fatalf("DescribeVpcs has its own bucket; accepted %d", n)
	}
	// Switch profile: aws-2026 has a 200-token ELB describe bucket.
	if err := e.srv.SetProfile(fakeaws.ProfileAWS2026); err != nil {
		t.Fatal(err)
	}
	mark := e.srv.Recorder().Len()
	for range 205 {
		_, _ = e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
	}
	if okD, _ := e.outcomes(mark, "DescribeTargetHealth"); okD != 200 {
		t.Fatalf("aws-2026 describe accepted %d, want 200", okD)
	}
	// Category override.
	e.srv.SetLimit(fakeaws.CategoryELBDescribe, 1, 2)
	mark = e.srv.Recorder().Len()
	for range 5 {
		_, _ = e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{})
	}
	if okD, _ := e.outcomes(mark, "DescribeTargetGroups"); okD != 2 {
		t.Fatalf("category override accepted %d, want 2", okD)
	}
	if err := e.srv.SetProfile("nope"); err == nil {
		t.Fatal("unknown profile accepted")
	}
}

// TestThrottleAccuracy hammers one bucket with retries off on the real clock for 600 ms and until it has
// refused 40 calls: in every window the accepted calls stay within burst + rate×T + 1 + callers − 1 (a call is
// stamped when it arrives and charged when it reaches the bucket, no earlier than any call charged before it: a
// window's end may hold calls of each other caller that arrived in it and were charged after a later one), and
// no call was refused while a token was due (before a refusal at τ, every window (s, τ] accepted at least rate×(τ−s) − 1,
// less one per concurrent caller, whose calls may reach the bucket out of order). Neither bound assumes
// the callers are fast: a slow machine makes fewer calls, each judged the same way.
func TestThrottleAccuracy(t *testing.T) {
	const rate, burst, callers, refusals, span = 40.0, 5, 3, 40, 600 * time.Millisecond
	e := newEnv(t, fakeaws.Options{Clock: clock.RealClock{}, Profile: fakeaws.ProfileAWSDocumented,
		Overrides: map[string]fakeaws.Limit{"DescribeTargetHealth": {Rate: rate, Burst: burst}}})
	arn := e.createTG(t, "tg", "ip", 80)
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		throttled int
		stop      = make(chan struct{})
	)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, err := e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
				if err != nil && !isThrottle(err) {
					t.Error(err)
					return
				}
				if err != nil {
					mu.Lock()
					throttled++
					mu.Unlock()
				}
			}
		}()
	}
	start := time.Now()
	testwait.Until(t, 30*time.Second, fmt.Sprintf("%d refused calls over %v", refusals, span), func() bool {
		mu.Lock()
		defer mu.Unlock()
		return throttled >= refusals && time.Since(start) >= span
	})
	close(stop)
	wg.Wait()
	var accepted, refused []time.Time
	for _, c := range e.srv.Recorder().Calls() {
		switch {
		case c.Operation != "DescribeTargetHealth":
		case c.Outcome == fakeaws.OutcomeOK:
			accepted = append(accepted, c.Time)
		case c.Outcome == fakeaws.OutcomeThrottled:
			refused = append(refused, c.Time)
		}
	}
	byTime := func(ts []time.Time) { sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) }) }
	byTime(accepted)
	byTime(refused)
	for i := range accepted {
		for j := i; j < len(accepted); j++ {
			window := accepted[j].Sub(accepted[i]).Seconds()
			if n, most := float64(j-i+1), burst+rate*window+callers; n > most {
				t.Fatalf("%v accepted calls within %.3fs > %v", n, window, most)
			}
		}
	}
	for _, tau := range refused {
		for i, s := range accepted { // windows (s, τ]: the accepted calls after s up to τ
			if !s.Before(tau) {
				break
			}
			n := sort.Search(len(accepted), func(k int) bool { return accepted[k].After(tau) }) - (i + 1)
			if want := rate*tau.Sub(s).Seconds() - 1 - callers; float64(n) < want {
				t.Fatalf("refused at %v while %d calls were accepted in the %v before it, want at least %.1f: a token was due",
					tau.Format("15:04:05.000"), n, tau.Sub(s), want)
			}
		}
	}
}

// TestStandardRetryerSucceeds: with aws-documented buckets (scaled 20×) and the SDK's standard retryer (10
// attempts, retry quota off as LBC configures it), every call eventually succeeds. The buckets' clock
// stands still until a call was refused (40 calls against a burst of 20 are, however slowly they come),
// then moves 250 ms every 20 ms, so the retries find tokens again.
func TestStandardRetryerSucceeds(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileAWSDocumented, TimeScale: 20})
	arn := e.createTG(t, "tg", "ip", 80)
	cfg := e.cfg.Copy()
	cfg.Retryer = func() aws.Retryer {
		return retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 10
			o.RateLimiter = ratelimit.None
			o.Backoff = retry.BackoffDelayerFunc(func(attempt int, _ error) (time.Duration, error) {
				return time.Duration(attempt) * 25 * time.Millisecond, nil
			})
		})
	}
	client := elb.NewFromConfig(cfg)
	throttled := func() int {
		n := 0
		for _, c := range e.srv.Recorder().Calls() {
			if c.Outcome == fakeaws.OutcomeThrottled {
				n++
			}
		}
		return n
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for refused := false; ; {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if refused = refused || throttled() > 0; refused {
				e.clock.Step(250 * time.Millisecond)
			}
		}
	}()
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := client.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn),
				Targets: []elbtypes.TargetDescription{{Id: aws.String(fmt.Sprintf("10.0.8.%d", i+1))}}})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	ths, _ := e.srv.Targets(arn)
	if len(ths) != 40 {
		t.Fatalf("%d targets registered, want 40", len(ths))
	}
	if throttled() == 0 {
		t.Fatal("no call was throttled; the test does not exercise retries")
	}
}
