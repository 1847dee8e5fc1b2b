package throttlespec

import "testing"

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
		{name: "NaN rate", in: "a:b=NaN:1", wantErr: true},
		{name: "infinite rate", in: "a:b=Inf:1", wantErr: true},
		{name: "negative rate", in: "a:b=-1:1", wantErr: true},
		{name: "vanishing rate", in: "EC2:.*=1e-300:5", wantErr: true},
		{name: "rate with two points", in: "EC2:^Describe.*=1.2.3:5", wantErr: true},
		{name: "burst beyond int", in: "EC2:a=1:99999999999999999999", wantErr: true},
		{name: "burst beyond the maximum", in: "EC2:a=1:1000001", wantErr: true},
		{name: "zero burst", in: "EC2:a=1:0", wantErr: true},
		{name: "extra field", in: "EC2:a=1:1:1", wantErr: true},
		{name: "Route53's quota", in: Route53AWSQuota, want: "Route 53:.*=5:5"},
		{name: "smallest and largest", in: "EC2:a=0.001:1000000,EC2:b=1000000:1", want: "EC2:a=0.001:1000000,EC2:b=1000000:1"},
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
		firstRate float64
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

func TestScaleAndRateFor(t *testing.T) {
	cfg, err := ParseWithDefaults("EC2:^Describe.*=10:5")
	if err != nil {
		t.Fatal(err)
	}
	scaled := cfg.Scale(2)
	if r, ok := scaled.RateFor(ServiceIDELBv2, "RegisterTargets"); !ok || r != 8 {
		t.Fatalf("scaled RegisterTargets rate = %v, %v; want 8", r, ok)
	}
	if r, _ := cfg.RateFor(ServiceIDELBv2, "RegisterTargets"); r != 4 {
		t.Fatalf("Scale changed its receiver: %v", r)
	}
	if _, ok := cfg.RateFor(ServiceIDEC2, "AuthorizeSecurityGroupIngress"); ok {
		t.Fatal("an unmatched operation has a rate")
	}
}
