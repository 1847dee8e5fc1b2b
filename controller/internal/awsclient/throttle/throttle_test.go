package throttle

import (
	"context"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // String() of the parsed config
		wantErr bool
	}{
		{name: "empty", in: "", want: ""},
		{name: "one", in: "EC2:^Describe.*=10:20", want: "EC2:^Describe.*=10:20"},
		{name: "alternation and fraction", in: "Elastic Load Balancing v2:^RegisterTargets|^DeregisterTargets=0.5:3",
			want: "Elastic Load Balancing v2:^RegisterTargets|^DeregisterTargets=0.5:3"},
		{name: "several services", in: "EC2:^Authorize.*=5:50, Elastic Load Balancing v2:^Describe.*=1:1",
			want: "EC2:^Authorize.*=5:50,Elastic Load Balancing v2:^Describe.*=1:1"},
		{name: "two rules one service", in: "EC2:a=1:1,EC2:b=2:2", want: "EC2:a=1:1,EC2:b=2:2"},
		{name: "missing burst", in: "EC2:^Describe.*=10", wantErr: true},
		{name: "missing service", in: "^Describe.*=10:20", wantErr: true},
		{name: "bad regex", in: "EC2:([=1:1", wantErr: true},
		{name: "bad rate", in: "EC2:a=x:1", wantErr: true},
		{name: "zero rate", in: "EC2:a=0:1", wantErr: true},
		{name: "bad burst", in: "EC2:a=1:1.5", wantErr: true},
		{name: "trailing comma", in: "EC2:a=1:1,", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil && cfg.String() != tt.want {
				t.Fatalf("got %q, want %q", cfg.String(), tt.want)
			}
		})
	}
}

func TestParseWithDefaults(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		elbRules  int
		ec2Rules  int
		firstRate rate.Limit
	}{
		{name: "defaults", in: "", elbRules: 3, ec2Rules: 0, firstRate: 4},
		{name: "ec2 added, elb kept", in: "EC2:.*=5:5", elbRules: 3, ec2Rules: 1, firstRate: 4},
		{name: "elb override replaces all elb defaults", in: "Elastic Load Balancing v2:^Describe.*=1:1", elbRules: 1, firstRate: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := ParseWithDefaults(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(cfg[ServiceIDELBv2]) != tt.elbRules || len(cfg[ServiceIDEC2]) != tt.ec2Rules {
				t.Fatalf("rules: %s", cfg)
			}
			if cfg[ServiceIDELBv2][0].Rate != tt.firstRate {
				t.Fatalf("first rate %v", cfg[ServiceIDELBv2][0].Rate)
			}
		})
	}
	if Defaults().String() != "Elastic Load Balancing v2:^RegisterTargets|^DeregisterTargets=4:20,Elastic Load Balancing v2:^Describe.*=50:200,Elastic Load Balancing v2:^Modify.*=3:20" {
		t.Fatalf("defaults: %s", Defaults())
	}
}

func TestThrottlerWaitsSharedLimiter(t *testing.T) {
	cfg, _ := Parse("S:^A|^B=20:1")
	var waits int
	th := New(cfg, func(_, _ string, d time.Duration) {
		if d > 20*time.Millisecond {
			waits++
		}
	})
	ctx := context.Background()
	start := time.Now()
	for _, op := range []string{"A", "B", "A", "B"} { // shared bucket: burst 1, 20/s
		if err := th.Wait(ctx, "S", op); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 120*time.Millisecond {
		t.Fatalf("4 calls at 20/s burst 1 took %v; limiter not shared", el)
	}
	for i := 0; i < 5; i++ { // unmatched op and service: free
		_ = th.Wait(ctx, "S", "C")
		_ = th.Wait(ctx, "Other", "A")
	}
	if waits < 2 {
		t.Fatalf("observe saw %d waits", waits)
	}
}
