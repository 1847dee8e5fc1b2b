package conformance_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
)

// Where Route53's answers are documented.
const (
	r53CreateZone  = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_CreateHostedZone.html"
	r53ZoneConfig  = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_HostedZoneConfig.html"
	r53Change      = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeResourceRecordSets.html"
	r53ChangeBatch = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_ChangeBatch.html"
	r53RecordSet   = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_ResourceRecordSet.html"
	r53Record      = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_ResourceRecord.html"
	r53AliasDoc    = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_AliasTarget.html"
	r53Tag         = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_Tag.html"
	r53ListSets    = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_ListResourceRecordSets.html"
	r53GetZone     = "https://docs.aws.amazon.com/Route53/latest/APIReference/API_GetHostedZone.html"
	r53NameFormat  = "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/DomainNameFormat.html"
	r53Types       = "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/ResourceRecordTypes.html"
	r53ValuesDoc   = "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/resource-record-sets-values.html"
	r53Quotas      = "https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/DNSLimitations.html"
)

// r53Fixture is the state every case starts from: zone example.com with the weighted set w.example.com A
// (identifier "a"), and zone other.com with target.other.com A.
type r53Fixture struct{ zone, other string }

type r53Case struct {
	name   string
	op     string               // the Route53 operation
	input  func(r53Fixture) any // its input: a *route53.<Operation>Input
	want   string               // the documented answer: "" for success, else the error code
	source string
}

func r53Create(rs *r53types.ResourceRecordSet) func(r53Fixture) any {
	return func(f r53Fixture) any { return r53Batch(f.zone, r53types.ChangeActionCreate, rs) }
}

func r53NewZone(name string) func(r53Fixture) any {
	return func(r53Fixture) any {
		return &route53.CreateHostedZoneInput{Name: aws.String(name), CallerReference: aws.String("case-" + name)}
	}
}

func r53Weighted(rs *r53types.ResourceRecordSet, id string, weight int64) *r53types.ResourceRecordSet {
	rs.SetIdentifier, rs.Weight = aws.String(id), aws.Int64(weight)
	return rs
}

var (
	r53Label64 = strings.Repeat("a", 64)
	r53Name271 = strings.Repeat("abcdefghi.", 26) + "example.com" // 271 bytes
	r53Quoted  = func(n int) string { return `"` + strings.Repeat("t", n) + `"` }
	r53ELBZone = "Z1H1FL5HABSF5" // ELB's canonical hosted zone in us-west-2
	r53ELBName = "my-lb-1234567890.us-west-2.elb.amazonaws.com"
)

var r53Cases = []r53Case{
	// Hosted zones.
	{"zone: ordinary", "CreateHostedZone", r53NewZone("ordinary.example"), "", r53CreateZone},
	{"zone: a top-level domain", "CreateHostedZone", r53NewZone("com"), "InvalidDomainName", r53CreateZone},
	{"zone: a wildcard name", "CreateHostedZone", r53NewZone("*.wild.com"), "InvalidDomainName", r53CreateZone},
	{"zone: a 64-byte label", "CreateHostedZone", r53NewZone(r53Label64 + ".com"), "InvalidDomainName", r53NameFormat},
	{"zone: a space", "CreateHostedZone", r53NewZone("sp ace.com"), "InvalidDomainName", r53NameFormat},
	{"zone: an empty label", "CreateHostedZone", r53NewZone("a..b.com"), "InvalidDomainName", r53NameFormat},
	{"zone: a CallerReference of 129 characters", "CreateHostedZone", func(r53Fixture) any {
		return &route53.CreateHostedZoneInput{Name: aws.String("ref.example"), CallerReference: aws.String(strings.Repeat("r", 129))}
	}, "InvalidInput", r53CreateZone},
	{"zone: a CallerReference used before", "CreateHostedZone", func(r53Fixture) any {
		return &route53.CreateHostedZoneInput{Name: aws.String("again.example"), CallerReference: aws.String("ref-example.com")}
	}, "HostedZoneAlreadyExists", r53CreateZone},
	{"zone: a comment of 257 characters", "CreateHostedZone", func(r53Fixture) any {
		return &route53.CreateHostedZoneInput{Name: aws.String("comment.example"), CallerReference: aws.String("comment"),
			HostedZoneConfig: &r53types.HostedZoneConfig{Comment: aws.String(strings.Repeat("c", 257))}}
	}, "InvalidInput", r53ZoneConfig},
	{"zone: unknown ID", "GetHostedZone", func(r53Fixture) any {
		return &route53.GetHostedZoneInput{Id: aws.String("ZNOSUCHZONE0000000000")}
	}, "NoSuchHostedZone", r53GetZone},

	// Record names.
	{"name: ordinary A", "ChangeResourceRecordSets", r53Create(r53Values("www.example.com", r53types.RRTypeA, "192.0.2.1")), "", r53Change},
	{"name: a wildcard", "ChangeResourceRecordSets", r53Create(r53Values("*.example.com", r53types.RRTypeA, "192.0.2.1")), "", r53NameFormat},
	{"name: an empty leading label", "ChangeResourceRecordSets", r53Create(r53Values(".lead.example.com", r53types.RRTypeA, "192.0.2.1")), "InvalidChangeBatch", r53NameFormat},
	{"name: a 64-byte label", "ChangeResourceRecordSets", r53Create(r53Values(r53Label64+".example.com", r53types.RRTypeA, "192.0.2.1")), "InvalidChangeBatch", r53NameFormat},
	{"name: over 255 bytes", "ChangeResourceRecordSets", r53Create(r53Values(r53Name271, r53types.RRTypeA, "192.0.2.1")), "InvalidChangeBatch", r53NameFormat},
	{"name: a space", "ChangeResourceRecordSets", r53Create(r53Values("sp ace.example.com", r53types.RRTypeA, "192.0.2.1")), "InvalidChangeBatch", r53NameFormat},
	{"name: outside the zone", "ChangeResourceRecordSets", r53Create(r53Values("www.example.org", r53types.RRTypeA, "192.0.2.1")), "InvalidChangeBatch", r53Change},

	// Values.
	{"value: TXT of 255 characters", "ChangeResourceRecordSets", r53Create(r53Values("t255.example.com", r53types.RRTypeTxt, r53Quoted(255))), "", r53Types},
	{"value: TXT of two strings of 255", "ChangeResourceRecordSets", r53Create(r53Values("t510.example.com", r53types.RRTypeTxt, r53Quoted(255)+" "+r53Quoted(255))), "", r53Types},
	{"value: TXT string of 256 characters", "ChangeResourceRecordSets", r53Create(r53Values("t256.example.com", r53types.RRTypeTxt, r53Quoted(256))), "InvalidChangeBatch", r53Types},
	{"value: over 4,000 characters", "ChangeResourceRecordSets", r53Create(r53Values("t4001.example.com", r53types.RRTypeTxt, strings.TrimSpace(strings.Repeat(r53Quoted(200)+" ", 20)))), "InvalidInput", r53Record},
	{"value: MX with a priority", "ChangeResourceRecordSets", r53Create(r53Values("mx.example.com", r53types.RRTypeMx, "10 mail.example.com")), "", r53Types},
	{"value: MX without a priority", "ChangeResourceRecordSets", r53Create(r53Values("mx2.example.com", r53types.RRTypeMx, "mail.example.com")), "InvalidChangeBatch", r53Types},
	{"value: CNAME at the apex", "ChangeResourceRecordSets", r53Create(r53Values("example.com", r53types.RRTypeCname, "www.example.org")), "InvalidChangeBatch", r53ValuesDoc},
	{"value: an A that is no IPv4 address", "ChangeResourceRecordSets", r53Create(r53Values("bad.example.com", r53types.RRTypeA, "256.1.1.1")), "InvalidChangeBatch", r53Types},

	// Routing policies.
	{"weighted: a second weighted set", "ChangeResourceRecordSets", r53Create(r53Weighted(r53Values("w.example.com", r53types.RRTypeA, "192.0.2.2"), "b", 1)), "", r53ValuesDoc},
	{"weighted: a plain set beside weighted ones", "ChangeResourceRecordSets", r53Create(r53Values("w.example.com", r53types.RRTypeA, "192.0.2.3")), "InvalidChangeBatch", r53ValuesDoc},
	{"weighted: SetIdentifier of 129 characters", "ChangeResourceRecordSets", r53Create(r53Weighted(r53Values("w2.example.com", r53types.RRTypeA, "192.0.2.3"), strings.Repeat("s", 129), 1)), "InvalidInput", r53RecordSet},

	// Aliases.
	{"alias: to a load balancer", "ChangeResourceRecordSets", r53Create(r53Alias("lb.example.com", r53types.RRTypeA, r53ELBZone, r53ELBName)), "", r53AliasDoc},
	{"alias: to a load balancer of a region fakeaws does not list", "ChangeResourceRecordSets", r53Create(r53Alias("lb-south.example.com", r53types.RRTypeA, "ZP97RAFLXTNZK", "my-lb-1.ap-south-1.elb.amazonaws.com")), "", r53AliasDoc},
	{"alias: ELB's zone, a name outside amazonaws.com", "ChangeResourceRecordSets", r53Create(r53Alias("lb-bad.example.com", r53types.RRTypeA, r53ELBZone, "www.example.org")), "InvalidChangeBatch", r53AliasDoc},
	{"alias: to a record of another zone", "ChangeResourceRecordSets", func(f r53Fixture) any {
		return r53Batch(f.zone, r53types.ChangeActionCreate, r53Alias("to-other.example.com", r53types.RRTypeA, f.other, "target.other.com"))
	}, "", r53AliasDoc},
	{"alias: to a zone that does not exist", "ChangeResourceRecordSets", r53Create(r53Alias("nozone.example.com", r53types.RRTypeA, "ZNOSUCHZONE0000000000", "target.other.com")), "InvalidChangeBatch", r53AliasDoc},
	{"alias: to a name missing from its zone", "ChangeResourceRecordSets", func(f r53Fixture) any {
		return r53Batch(f.zone, r53types.ChangeActionCreate, r53Alias("missing.example.com", r53types.RRTypeA, f.other, "nothing.other.com"))
	}, "InvalidChangeBatch", r53AliasDoc},
	{"alias: to a name outside its zone", "ChangeResourceRecordSets", func(f r53Fixture) any {
		return r53Batch(f.zone, r53types.ChangeActionCreate, r53Alias("outside.example.com", r53types.RRTypeA, f.other, "www.example.com"))
	}, "InvalidChangeBatch", r53AliasDoc},
	{"alias: to itself", "ChangeResourceRecordSets", func(f r53Fixture) any {
		return r53Batch(f.zone, r53types.ChangeActionCreate, r53Alias("self.example.com", r53types.RRTypeA, f.zone, "self.example.com"))
	}, "InvalidChangeBatch", r53AliasDoc},
	{"alias: a DNS name over 1,024 characters", "ChangeResourceRecordSets", r53Create(r53Alias("big.example.com", r53types.RRTypeA, r53ELBZone, strings.Repeat("*", 1025))), "InvalidInput", r53AliasDoc},

	// Batches.
	{"batch: a comment of 257 characters", "ChangeResourceRecordSets", func(f r53Fixture) any {
		in := r53Batch(f.zone, r53types.ChangeActionUpsert, r53Values("c.example.com", r53types.RRTypeA, "192.0.2.1"))
		in.ChangeBatch.Comment = aws.String(strings.Repeat("c", 257))
		return in
	}, "InvalidInput", r53ChangeBatch},
	{"batch: deleting a set that does not exist", "ChangeResourceRecordSets", func(f r53Fixture) any {
		return r53Batch(f.zone, r53types.ChangeActionDelete, r53Values("gone.example.com", r53types.RRTypeA, "192.0.2.1"))
	}, "InvalidChangeBatch", r53Change},

	// Tags.
	{"tags: ordinary", "ChangeTagsForResource", r53Tags("team", "dns"), "", r53Tag},
	{"tags: a key of 129 characters", "ChangeTagsForResource", r53Tags(strings.Repeat("k", 129), "v"), "InvalidInput", r53Tag},
	{"tags: a value of 257 characters", "ChangeTagsForResource", r53Tags("k", strings.Repeat("v", 257)), "InvalidInput", r53Tag},

	// Listing.
	{"list: from a name", "ListResourceRecordSets", r53List(aws.String("example.com"), ""), "", r53ListSets},
	{"list: StartRecordName over 1,024 characters", "ListResourceRecordSets", r53List(aws.String(strings.Repeat("a.", 513)+"com"), ""), "InvalidInput", r53ListSets},
	{"list: StartRecordName with an empty label", "ListResourceRecordSets", r53List(aws.String("example.com.."), ""), "InvalidInput", r53NameFormat},
	{"list: StartRecordType BOGUS", "ListResourceRecordSets", r53List(aws.String("example.com"), "BOGUS"), "InvalidInput", r53ListSets},
	{"list: StartRecordType without a name", "ListResourceRecordSets", r53List(nil, "A"), "InvalidInput", r53ListSets},
}

func r53Tags(key, value string) func(r53Fixture) any {
	return func(f r53Fixture) any {
		return &route53.ChangeTagsForResourceInput{ResourceType: r53types.TagResourceTypeHostedzone, ResourceId: aws.String(f.zone),
			AddTags: []r53types.Tag{{Key: aws.String(key), Value: aws.String(value)}}}
	}
}

func r53List(name *string, typ r53types.RRType) func(r53Fixture) any {
	return func(f r53Fixture) any {
		return &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(f.zone), StartRecordName: name, StartRecordType: typ}
	}
}

// r53Do calls the operation of in.
func r53Do(ctx context.Context, c *route53.Client, in any) error {
	var err error
	switch in := in.(type) {
	case *route53.CreateHostedZoneInput:
		_, err = c.CreateHostedZone(ctx, in)
	case *route53.GetHostedZoneInput:
		_, err = c.GetHostedZone(ctx, in)
	case *route53.ChangeResourceRecordSetsInput:
		_, err = c.ChangeResourceRecordSets(ctx, in)
	case *route53.ChangeTagsForResourceInput:
		_, err = c.ChangeTagsForResource(ctx, in)
	case *route53.ListResourceRecordSetsInput:
		_, err = c.ListResourceRecordSets(ctx, in)
	default:
		return fmt.Errorf("no call for %T", in)
	}
	return err
}

// TestRoute53Conformance runs every case through the real SDK against a started fakeaws.
func TestRoute53Conformance(t *testing.T) {
	c := r53Client(t)
	ctx := r53s3Ctx(t)
	f := r53Fixture{zone: r53Zone(t, c, "example.com"), other: r53Zone(t, c, "other.com")}
	for _, in := range []*route53.ChangeResourceRecordSetsInput{
		r53Batch(f.zone, r53types.ChangeActionCreate, r53Weighted(r53Values("w.example.com", r53types.RRTypeA, "192.0.2.1"), "a", 1)),
		r53Batch(f.other, r53types.ChangeActionCreate, r53Values("target.other.com", r53types.RRTypeA, "192.0.2.9")),
	} {
		if _, err := c.ChangeResourceRecordSets(ctx, in); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range r53Cases {
		t.Run(tc.name, func(t *testing.T) {
			err := r53Do(ctx, c, tc.input(f))
			if got := r53s3Code(err); got != tc.want {
				t.Errorf("%s: answer %q (%.300v), documented %q (%s)", tc.op, got, err, tc.want, tc.source)
			}
		})
	}
}

// TestRoute53DelegationSet: the name servers of a new zone's delegation set carry no trailing dot, as in
// the CreateHostedZone and GetHostedZone examples; the zone's NS record set names them with one.
func TestRoute53DelegationSet(t *testing.T) {
	c := r53Client(t)
	ctx := r53s3Ctx(t)
	out, err := c.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String("ns.example"), CallerReference: aws.String("ns")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: out.HostedZone.Id})
	if err != nil {
		t.Fatal(err)
	}
	for _, ds := range []*r53types.DelegationSet{out.DelegationSet, got.DelegationSet} {
		if ds == nil || len(ds.NameServers) != 4 {
			t.Fatalf("delegation set %+v, want four name servers (%s)", ds, r53CreateZone)
		}
		for _, ns := range ds.NameServers {
			if strings.HasSuffix(ns, ".") {
				t.Errorf("name server %q ends with a dot; AWS's examples have none (%s)", ns, r53CreateZone)
			}
		}
	}
	sets, err := c.ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{HostedZoneId: out.HostedZone.Id,
		StartRecordName: aws.String("ns.example"), StartRecordType: r53types.RRTypeNs, MaxItems: aws.Int32(1)})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sets.ResourceRecordSets[0].ResourceRecords {
		if !strings.HasSuffix(aws.ToString(r.Value), ".") {
			t.Errorf("NS value %q lacks the trailing dot of a record value", aws.ToString(r.Value))
		}
	}
}
