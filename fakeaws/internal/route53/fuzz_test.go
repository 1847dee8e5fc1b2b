package route53

import (
	"encoding/xml"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// FuzzRequest feeds arbitrary paths, query strings and bodies through path resolution, XML decoding and the
// store: nothing may panic, every refusal is an AWS error, and every answer encodes to XML.
func FuzzRequest(f *testing.F) {
	f.Add("POST", "/2013-04-01/hostedzone", "", `<CreateHostedZoneRequest xmlns="`+Namespace+`"><Name>a.example</Name><CallerReference>r</CallerReference></CreateHostedZoneRequest>`)
	f.Add("POST", "/2013-04-01/hostedzone/ZFUZZ/rrset", "", `<ChangeResourceRecordSetsRequest><ChangeBatch><Changes><Change><Action>UPSERT</Action><ResourceRecordSet><Name>*.Fuzz.Example</Name><Type>A</Type><TTL>60</TTL><ResourceRecords><ResourceRecord><Value>10.0.0.1</Value></ResourceRecord></ResourceRecords></ResourceRecordSet></Change></Changes></ChangeBatch></ChangeResourceRecordSetsRequest>`)
	f.Add("POST", "/2013-04-01/hostedzone/%2Fhostedzone%2FZFUZZ/rrset/", "", `<ChangeResourceRecordSetsRequest><ChangeBatch><Changes><Change><Action>CREATE</Action><ResourceRecordSet><Name>x.fuzz.example</Name><Type>A</Type><SetIdentifier>s</SetIdentifier><Weight>1</Weight><AliasTarget><HostedZoneId>/hostedzone/Z1</HostedZoneId><DNSName>lb</DNSName><EvaluateTargetHealth>true</EvaluateTargetHealth></AliasTarget></ResourceRecordSet></Change></Changes></ChangeBatch></ChangeResourceRecordSetsRequest>`)
	f.Add("GET", "/2013-04-01/hostedzone/ZFUZZ/rrset", "name=fuzz.example&type=SOA&maxitems=1", "")
	f.Add("GET", "/2013-04-01/hostedzonesbyname", "dnsname=fuzz.example&hostedzoneid=Z&maxitems=0", "")
	f.Add("POST", "/2013-04-01/tags/hostedzone", "", `<ListTagsForResourcesRequest><ResourceIds><ResourceId>ZFUZZ</ResourceId></ResourceIds></ListTagsForResourcesRequest>`)
	f.Add("POST", "/2013-04-01/tags/hostedzone/ZFUZZ", "", `<ChangeTagsForResourceRequest><AddTags><Tag><Key>k</Key><Value>v</Value></Tag></AddTags><RemoveTagKeys><Key>x</Key></RemoveTagKeys></ChangeTagsForResourceRequest>`)
	f.Add("GET", "/2013-04-01/change/%2Fchange%2FC1", "", "")
	f.Add("DELETE", "/2013-04-01/hostedzone/ZFUZZ", "", "<")
	f.Fuzz(func(t *testing.T, method, path, rawQuery, body string) {
		st := state.New(state.Config{AccountID: "123456789012", Region: "us-west-2", MaxTags: 50, MaxHostedZones: 5, MaxRecordSetsPerZone: 50})
		svc := New(st)
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if _, _, err := st.CreateHostedZone(state.HostedZone{Name: "fuzz.example", CallerReference: "seed"}, now); err != nil {
			t.Fatal(err)
		}
		route, rerr := Resolve(method, path)
		if rerr != nil {
			return
		}
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return
		}
		if route.ZoneID == "ZFUZZ" || route.ResourceID == "ZFUZZ" {
			route.ZoneID, route.ResourceID = st.HostedZones()[0].ID, st.HostedZones()[0].ID
		}
		out, err := svc.Serve(now, route, q, []byte(body))
		if err != nil {
			var qe *query.Error
			var be *state.BatchError
			if !errors.As(err, &qe) && !errors.As(err, &be) {
				t.Fatalf("%s %s: error %T %v is not an AWS error", method, path, err, err)
			}
			fail := EncodeError(err, "req")
			if err := xml.Unmarshal(fail.Body, new(errorDoc)); err != nil {
				t.Fatalf("error document does not parse: %v\n%s", err, fail.Body)
			}
			return
		}
		doc, err := Encode(out.Doc)
		if err != nil {
			t.Fatalf("%s %s: encoding the answer: %v", method, path, err)
		}
		if err := xml.Unmarshal(doc, new(struct{})); err != nil {
			t.Fatalf("answer does not parse: %v\n%s", err, doc)
		}
	})
}
