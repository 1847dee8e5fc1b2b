package fakeaws_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// manyValues is an A record set with n values.
func manyValues(name string, n int) *r53types.ResourceRecordSet {
	rs := aSet(name, "10.0.0.1")
	rs.ResourceRecords = nil
	for i := range n {
		rs.ResourceRecords = append(rs.ResourceRecords, r53types.ResourceRecord{Value: aws.String(fmt.Sprintf("10.0.%d.%d", i/250, i%250))})
	}
	return rs
}

func TestRoute53ChangeBatchErrors(t *testing.T) {
	longTXT := &r53types.ResourceRecordSet{Name: aws.String("t.example.com"), Type: r53types.RRTypeTxt, TTL: aws.Int64(60)}
	for i := range 130 {
		longTXT.ResourceRecords = append(longTXT.ResourceRecords, r53types.ResourceRecord{Value: aws.String(fmt.Sprintf("%q", strings.Repeat("x", 250)+fmt.Sprint(i)))})
	}
	noTTL := aSet("n.example.com", "10.0.0.1")
	noTTL.TTL = nil
	create, del, upsert := r53types.ChangeActionCreate, r53types.ChangeActionDelete, r53types.ChangeActionUpsert
	cname := &r53types.ResourceRecordSet{Name: aws.String("www.example.com"), Type: r53types.RRTypeCname, TTL: aws.Int64(60),
		ResourceRecords: []r53types.ResourceRecord{{Value: aws.String("lb.example.net")}}}
	tests := []struct {
		name    string
		changes []r53types.Change
		code    string   // InvalidInput, when not a batch error
		msgs    []string // InvalidChangeBatch's messages
	}{
		{"create existing", []r53types.Change{change(create, aSet("www.example.com", "10.0.0.2"))}, "",
			[]string{"Tried to create resource record set [name='www.example.com.', type='A'] but it already exists"}},
		{"delete missing", []r53types.Change{change(del, aSet("nope.example.com", "10.0.0.2"))}, "",
			[]string{"Tried to delete resource record set [name='nope.example.com.', type='A'] but it was not found"}},
		{"delete other values", []r53types.Change{change(del, aSet("www.example.com", "10.0.0.2"))}, "",
			[]string{"Tried to delete resource record set [name='www.example.com.', type='A'] but the values provided do not match the current values"}},
		{"atomic: one bad change refuses all", []r53types.Change{change(create, aSet("new.example.com", "10.0.0.3")), change(create, aSet("www.example.com", "10.0.0.1"))}, "",
			[]string{"Tried to create resource record set [name='www.example.com.', type='A'] but it already exists"}},
		{"outside the zone", []r53types.Change{change(create, aSet("www.example.org", "10.0.0.1"))}, "",
			[]string{"RRSet with DNS name www.example.org. is not permitted in zone example.com."}},
		{"CNAME beside A", []r53types.Change{change(create, cname)}, "",
			[]string{"RRSet of type CNAME with DNS name www.example.com. is not permitted as it conflicts with other records with the same DNS name in zone example.com."}},
		{"not an IPv4 address", []r53types.Change{change(create, aSet("bad.example.com", "300.1.1.1"))}, "",
			[]string{"Invalid Resource Record: 'FATAL problem: ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address) encountered with '300.1.1.1''"}},
		{"apex SOA", []r53types.Change{change(del, &r53types.ResourceRecordSet{Name: aws.String("example.com"), Type: r53types.RRTypeSoa, TTL: aws.Int64(900),
			ResourceRecords: []r53types.ResourceRecord{{Value: aws.String("x")}}})}, "",
			[]string{"Tried to delete resource record set [name='example.com.', type='SOA'] but the values provided do not match the current values"}},
		{"1,001 records", []r53types.Change{change(create, manyValues("big.example.com", 1001))}, "", []string{"Number of records limit of 1000 exceeded."}},
		{"UPSERT counts twice", []r53types.Change{change(upsert, manyValues("big.example.com", 501))}, "", []string{"Number of records limit of 1000 exceeded."}},
		{"32,000 characters", []r53types.Change{change(create, longTXT)}, "", []string{"Number of characters limit of 32000 exceeded."}},
		{"neither TTL nor alias", []r53types.Change{change(create, noTTL)}, "InvalidInput", nil},
		{"two messages", []r53types.Change{change(del, aSet("x.example.com", "10.0.0.1")), change(del, aSet("y.example.com", "10.0.0.1"))}, "",
			[]string{"Tried to delete resource record set [name='x.example.com.', type='A'] but it was not found",
				"Tried to delete resource record set [name='y.example.com.', type='A'] but it was not found"}},
	}
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "example.com")
	must[any](t)(changeSets(c, zone, change(create, aSet("www.example.com", "10.0.0.1"))))
	before := must[[]fakeaws.RecordSet](t)(e.srv.RecordSets(zone))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := changeSets(c, zone, tt.changes...)
			if tt.code != "" {
				wantCode(t, err, tt.code)
			} else {
				wantBatch(t, err, tt.msgs...)
			}
			if after := must[[]fakeaws.RecordSet](t)(e.srv.RecordSets(zone)); len(after) != len(before) {
				t.Fatalf("a refused batch changed the zone: %d record sets, had %d", len(after), len(before))
			}
		})
	}
	// A DELETE and CREATE of one set in a batch replace it, as external-dns relies on.
	must[any](t)(changeSets(c, zone, change(del, aSet("www.example.com", "10.0.0.1")), change(create, aSet("www.example.com", "10.0.0.9"))))
	sets := must[[]fakeaws.RecordSet](t)(e.srv.RecordSets(zone))
	if v := sets[len(sets)-1].Values; len(v) != 1 || v[0] != "10.0.0.9" {
		t.Fatalf("www after delete+create = %v, want 10.0.0.9", v)
	}
}
