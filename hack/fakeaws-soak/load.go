package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awscreds "github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// load counts the requests of each kind a phase sent.
type load struct {
	mu     sync.Mutex
	counts map[string]*atomic.Int64
	errs   map[string]string // the first error of each failing kind
}

func (l *load) add(kind string) {
	l.mu.Lock()
	if l.counts == nil {
		l.counts = map[string]*atomic.Int64{}
	}
	c := l.counts[kind]
	if c == nil {
		c = &atomic.Int64{}
		l.counts[kind] = c
	}
	l.mu.Unlock()
	c.Add(1)
}

func (l *load) snapshot() map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]int64{}
	for k, c := range l.counts {
		out[k] = c.Load()
	}
	return out
}

func (l *load) total() int64 {
	var n int64
	for _, v := range l.snapshot() {
		n += v
	}
	return n
}

// hostileBody is just under the default 1 MiB body limit: a form with one key of half a million dots,
// which a parser indexing every dotted prefix pays for quadratically.
var hostileBody = "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("a.", 524000) + "=1"

var httpClient = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

// unsignedLarge sends unsigned 1 MiB hostile bodies from workers goroutines until ctx ends.
func (l *load) unsignedLarge(ctx context.Context, url string, workers int) {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				if post(ctx, url, hostileBody, nil) {
					l.add("hostile unsigned 1 MiB")
				}
			}
		})
	}
	wg.Wait()
}

// signedHostile sends correctly signed requests that the form limits and validation refuse.
func (l *load) signedHostile(ctx context.Context, url string, c credentials) {
	bodies := map[string]string{
		"hostile signed dotted key":   hostileBody,
		"hostile signed many params":  "Action=DescribeTargetGroups&Version=2015-12-01" + strings.Repeat("&a=1", 200000),
		"hostile signed list gap":     "Action=DescribeTargetGroups&Version=2015-12-01&TargetGroupArns.member.999999999=x",
		"hostile signed invalid utf8": "Action=CreateSecurityGroup&Version=2016-11-15&GroupName=g&GroupDescription=%FF%FE",
		"hostile bad signature":       "Action=DescribeTargetGroups&Version=2015-12-01",
	}
	signer := v4.NewSigner()
	for ctx.Err() == nil {
		for kind, body := range bodies {
			svc, secret := "elasticloadbalancing", c.secret
			if strings.Contains(body, "2016-11-15") {
				svc = "ec2"
			}
			if kind == "hostile bad signature" {
				secret = "not-the-secret"
			}
			sign := func(req *http.Request) {
				sum := sha256.Sum256([]byte(body))
				_ = signer.SignHTTP(ctx, aws.Credentials{AccessKeyID: c.key, SecretAccessKey: secret}, req, hex.EncodeToString(sum[:]), svc, "us-west-2", time.Now())
			}
			if post(ctx, url, body, sign) {
				l.add(kind)
			}
		}
	}
}

// post sends one form request and reports whether it got any answer.
func post(ctx context.Context, url, body string, sign func(*http.Request)) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/", strings.NewReader(body))
	if err != nil {
		return false
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if sign != nil {
		sign(req)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return true
}

// slowConnections keeps n connections trickling a request body a byte every two seconds, reopening
// each one the server closes. Signed, their headers carry a SigV4 signature with the server's key ID and
// the current date that cannot match (anyone can write one): they pass what the headers decide, so the
// server reads their bodies; unsigned, they are refused before it does.
func (l *load) slowConnections(ctx context.Context, s *server, n int, signed bool) {
	kind := "hostile slow body connection"
	if signed {
		kind = "hostile slow signed body connection"
	}
	l.holdConnections(ctx, s.addr, n, kind, func() string { return formHeaders(s, 100000, signed) }, "A")
}

// headerOnlyConnections keeps n connections that sent the signed-looking headers of a 1 MiB body and one
// byte of it, then nothing, reopening each one the server closes.
func (l *load) headerOnlyConnections(ctx context.Context, s *server, n int) {
	l.holdConnections(ctx, s.addr, n, "hostile header-only connection", func() string { return formHeaders(s, 1<<20, true) + "A" }, "")
}

// idleConnections keeps n keep-alive connections open after one request each, reopening each one the
// server closes.
func (l *load) idleConnections(ctx context.Context, addr string, n int) {
	l.holdConnections(ctx, addr, n, "hostile idle connection", func() string { return "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" }, "")
}

func (l *load) holdConnections(ctx context.Context, addr string, n int, kind string, first func() string, trickle string) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				conn, err := net.Dial("tcp", addr)
				if err != nil {
					time.Sleep(time.Second)
					continue
				}
				l.add(kind)
				hold(ctx, conn, first(), trickle)
			}
		})
	}
	wg.Wait()
}

// hold writes first, then trickle every two seconds (or, without one, reads) until the server closes conn
// or ctx ends.
func hold(ctx context.Context, conn net.Conn, first, trickle string) {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if _, err := io.WriteString(conn, first); err != nil {
		return
	}
	if trickle == "" {
		_, _ = io.Copy(io.Discard, conn) // returns when the server closes the idle connection
		return
	}
	for ctx.Err() == nil {
		time.Sleep(2 * time.Second)
		if _, err := io.WriteString(conn, trickle); err != nil {
			return
		}
	}
}

// valid runs workers SDK clients that register, describe and deregister targets on their own target
// group and describe security groups, as a controller does.
func (l *load) valid(ctx context.Context, url string, c credentials, workers int) {
	cfg := aws.Config{Region: "us-west-2", BaseEndpoint: aws.String(url), RetryMaxAttempts: 3, // the SDK's own transport flakes (aws-sdk-go-v2#1825) are retried
		Credentials: awscreds.NewStaticCredentialsProvider(c.key, c.secret, "")}
	lb, vpcs := elb.NewFromConfig(cfg), ec2.NewFromConfig(cfg)
	dv, err := vpcs.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	if err != nil || len(dv.Vpcs) == 0 {
		l.add("valid setup failed")
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			tg, err := lb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String(fmt.Sprintf("soak-%d", w)),
				Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: dv.Vpcs[0].VpcId, TargetType: elbtypes.TargetTypeEnumIp})
			if err != nil {
				l.add("valid setup failed")
				return
			}
			arn := tg.TargetGroups[0].TargetGroupArn
			for i := 0; ctx.Err() == nil; i++ {
				t := []elbtypes.TargetDescription{{Id: aws.String(fmt.Sprintf("10.0.%d.%d", w*60+(i>>8)%60, 1+i%250)), Port: aws.Int32(80)}}
				l.count("valid", ctx, func() error {
					_, err := lb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: arn, Targets: t})
					return err
				})
				l.count("valid", ctx, func() error {
					_, err := lb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: arn})
					return err
				})
				l.count("valid", ctx, func() error {
					_, err := lb.DeregisterTargets(ctx, &elb.DeregisterTargetsInput{TargetGroupArn: arn, Targets: t})
					return err
				})
				l.count("valid", ctx, func() error {
					_, err := vpcs.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{})
					return err
				})
			}
		})
	}
	wg.Wait()
}

// count runs one valid call and counts it as ok or failed (a failure after ctx ended is not counted).
func (l *load) count(prefix string, ctx context.Context, call func() error) {
	err := call()
	switch {
	case err == nil:
		l.add(prefix + " ok")
	case ctx.Err() == nil:
		l.add(prefix + " failed")
		l.mu.Lock()
		if l.errs == nil {
			l.errs = map[string]string{}
		}
		if _, ok := l.errs[prefix+" failed"]; !ok {
			l.errs[prefix+" failed"] = err.Error()
		}
		l.mu.Unlock()
	}
}
