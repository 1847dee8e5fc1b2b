package controller

import (
	"strings"
	"testing"
)

func TestLoadBalancerOptions(t *testing.T) {
	o := Options{}.setDefaults()
	if o.LoadBalancers || o.ModelCheckpoint != ModelCheckpointNone || o.IngressClass != DefaultIngressClass {
		t.Fatalf("defaults: LoadBalancers %v, ModelCheckpoint %q, IngressClass %q", o.LoadBalancers, o.ModelCheckpoint, o.IngressClass)
	}
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "off", opts: Options{}},
		{name: "on", opts: Options{LoadBalancers: true, ClusterName: "c", VpcID: "vpc-1", ModelCheckpoint: ModelCheckpointModel}},
		{name: "unknown model checkpoint", opts: Options{ModelCheckpoint: "hash"}, wantErr: "model checkpoint"},
		{name: "no cluster name", opts: Options{LoadBalancers: true, VpcID: "vpc-1"}, wantErr: "need ClusterName"},
		{name: "no VPC", opts: Options{LoadBalancers: true, ClusterName: "c"}, wantErr: "need ClusterName"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Validate() = %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
}
