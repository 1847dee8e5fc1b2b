package fakeaws

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/eks"
	"github.com/restartsim/restartsim/fakeaws/internal/elbv2"
	"github.com/restartsim/restartsim/fakeaws/internal/iam"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/route53"
	"github.com/restartsim/restartsim/fakeaws/internal/sts"
)

// Every operation Operations lists is one the server routes to a handler, and the ones a scenario
// names most are among them.
func TestOperationsAreServed(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ops := Operations()
	versions := map[string]string{ServiceELBv2: elbv2.Version, ServiceSTS: sts.Version, ServiceEC2: "2016-11-15", ServiceIAM: iam.Version}
	for svc, names := range ops {
		if len(names) == 0 {
			t.Errorf("%s: no operations", svc)
		}
		for _, op := range names {
			if svc == ServiceACM { // AWS JSON 1.1: routed by X-Amz-Target
				if _, ok := s.acm.Lookup(op); !ok {
					t.Errorf("%s %s: listed but not served", svc, op)
				}
				continue
			}
			if svc == ServiceRoute53 { // REST-XML: routed by path, not by a Query form
				if _, err := s.route53.Serve(time.Now(), route53.Route{Operation: op}, nil, nil); err != nil &&
					strings.Contains(err.Error(), "is not supported") {
					t.Errorf("%s %s: listed but not served: %v", svc, op, err)
				}
				continue
			}
			if svc == ServiceSSM || svc == ServiceEKS { // JSON: routed by X-Amz-Target (SSM) or path (EKS)
				_, ok := s.ssm.Lookup(op)
				if svc == ServiceEKS {
					route, _ := eks.Resolve("GET", "/clusters/demo")
					ok = route.Operation == op
				}
				if !ok {
					t.Errorf("%s %s: listed but not served", svc, op)
				}
				continue
			}
			q := url.Values{"Action": {op}, "Version": {versions[svc]}}
			form, err := query.ParseForm(nil, q.Encode(), query.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if _, e := s.lookup(svc, op, form); e != nil {
				t.Errorf("%s %s: listed but not served: %v", svc, op, e)
			}
		}
	}
	for _, op := range []string{"ModifyTargetGroup", "RegisterTargets", "AuthorizeSecurityGroupIngress", "ModifyRule", "GetCallerIdentity", "ChangeResourceRecordSets",
		"CreateInstanceProfile", "GetParameter", "DescribeCluster"} {
		if !IsOperation(op) {
			t.Errorf("%s is not listed", op)
		}
	}
	for _, op := range []string{"", "ModifyTargetGroups", "NoSuchOperation"} {
		if IsOperation(op) {
			t.Errorf("%q is listed", op)
		}
	}
	// A caller's changes to the returned lists do not reach the next caller.
	ops[ServiceELBv2][0] = "Mangled"
	if slices.Contains(Operations()[ServiceELBv2], "Mangled") {
		t.Error("Operations returned its own table")
	}
}
