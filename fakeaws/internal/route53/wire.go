package route53

import (
	"encoding/xml"

	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// Namespace is the XML namespace of Route53's documents.
const Namespace = "https://route53.amazonaws.com/doc/2013-04-01/"

// timeFormat is how Route53 writes SubmittedAt.
const timeFormat = "2006-01-02T15:04:05.000Z"

type (
	xmlZone struct {
		ID                     string         `xml:"Id"`
		Name                   string         `xml:"Name"`
		CallerReference        string         `xml:"CallerReference"`
		Config                 *xmlZoneConfig `xml:"Config"`
		ResourceRecordSetCount int            `xml:"ResourceRecordSetCount"`
	}
	xmlZoneConfig struct {
		Comment     string `xml:"Comment,omitempty"`
		PrivateZone bool   `xml:"PrivateZone"`
	}
	xmlChangeInfo struct {
		ID          string `xml:"Id"`
		Status      string `xml:"Status"`
		SubmittedAt string `xml:"SubmittedAt"`
		Comment     string `xml:"Comment,omitempty"`
	}
	xmlDelegationSet struct {
		NameServers []string `xml:"NameServers>NameServer"`
	}
	xmlVPC struct {
		VPCRegion string `xml:"VPCRegion,omitempty"`
		VPCID     string `xml:"VPCId,omitempty"`
	}
	xmlRecordSet struct {
		Name             string     `xml:"Name"`
		Type             string     `xml:"Type"`
		SetIdentifier    string     `xml:"SetIdentifier,omitempty"`
		Weight           *int64     `xml:"Weight,omitempty"`
		Region           string     `xml:"Region,omitempty"`
		Failover         string     `xml:"Failover,omitempty"`
		MultiValueAnswer *bool      `xml:"MultiValueAnswer,omitempty"`
		TTL              *int64     `xml:"TTL,omitempty"`
		Records          []xmlValue `xml:"ResourceRecords>ResourceRecord"`
		AliasTarget      *xmlAlias  `xml:"AliasTarget,omitempty"`
		HealthCheckID    string     `xml:"HealthCheckId,omitempty"`
	}
	xmlValue struct {
		Value string `xml:"Value"`
	}
	xmlAlias struct {
		HostedZoneID         string `xml:"HostedZoneId"`
		DNSName              string `xml:"DNSName"`
		EvaluateTargetHealth bool   `xml:"EvaluateTargetHealth"`
	}
	xmlTag struct {
		Key   string `xml:"Key"`
		Value string `xml:"Value,omitempty"`
	}
	xmlTagSet struct {
		ResourceType string   `xml:"ResourceType"`
		ResourceID   string   `xml:"ResourceId"`
		Tags         []xmlTag `xml:"Tags>Tag"`
	}
)

// Requests.
type (
	createZoneRequest struct {
		XMLName          xml.Name `xml:"CreateHostedZoneRequest"`
		Name             string   `xml:"Name"`
		CallerReference  string   `xml:"CallerReference"`
		HostedZoneConfig *struct {
			Comment     string `xml:"Comment"`
			PrivateZone bool   `xml:"PrivateZone"`
		} `xml:"HostedZoneConfig"`
		VPC             *xmlVPC `xml:"VPC"`
		DelegationSetID string  `xml:"DelegationSetId"`
	}
	changeBatchRequest struct {
		XMLName     xml.Name `xml:"ChangeResourceRecordSetsRequest"`
		ChangeBatch struct {
			Comment string `xml:"Comment"`
			Changes []struct {
				Action            string       `xml:"Action"`
				ResourceRecordSet xmlRecordSet `xml:"ResourceRecordSet"`
			} `xml:"Changes>Change"`
		} `xml:"ChangeBatch"`
	}
	changeTagsRequest struct {
		XMLName       xml.Name `xml:"ChangeTagsForResourceRequest"`
		AddTags       []xmlTag `xml:"AddTags>Tag"`
		RemoveTagKeys []string `xml:"RemoveTagKeys>Key"`
	}
	listTagsRequest struct {
		XMLName     xml.Name `xml:"ListTagsForResourcesRequest"`
		ResourceIDs []string `xml:"ResourceIds>ResourceId"`
	}
)

func zoneXML(z state.HostedZone) xmlZone {
	return xmlZone{ID: "/hostedzone/" + z.ID, Name: z.Name, CallerReference: z.CallerReference,
		Config: &xmlZoneConfig{Comment: z.Comment, PrivateZone: z.PrivateZone}, ResourceRecordSetCount: z.RecordSetCount}
}

func changeXML(c state.ChangeInfo) xmlChangeInfo {
	return xmlChangeInfo{ID: "/change/" + c.ID, Status: c.Status, SubmittedAt: c.SubmittedAt.UTC().Format(timeFormat), Comment: c.Comment}
}

func vpcsXML(z state.HostedZone) []xmlVPC {
	out := make([]xmlVPC, len(z.VPCs))
	for i, v := range z.VPCs {
		out[i] = xmlVPC{VPCRegion: v.Region, VPCID: v.ID}
	}
	return out
}

func recordSetXML(r state.RecordSet) xmlRecordSet {
	x := xmlRecordSet{Name: r.Name, Type: r.Type, SetIdentifier: r.SetIdentifier, Weight: r.Weight, Region: r.Region,
		Failover: r.Failover, MultiValueAnswer: r.MultiValueAnswer, TTL: r.TTL, HealthCheckID: r.HealthCheckID}
	for _, v := range r.Values {
		x.Records = append(x.Records, xmlValue{v})
	}
	if a := r.AliasTarget; a != nil {
		x.AliasTarget = &xmlAlias{HostedZoneID: a.HostedZoneID, DNSName: a.DNSName, EvaluateTargetHealth: a.EvaluateTargetHealth}
	}
	return x
}

func (x xmlRecordSet) state() state.RecordSet {
	r := state.RecordSet{Name: x.Name, Type: x.Type, SetIdentifier: x.SetIdentifier, Weight: x.Weight, Region: x.Region,
		Failover: x.Failover, MultiValueAnswer: x.MultiValueAnswer, TTL: x.TTL, HealthCheckID: x.HealthCheckID}
	for _, v := range x.Records {
		r.Values = append(r.Values, v.Value)
	}
	if a := x.AliasTarget; a != nil {
		r.AliasTarget = &state.AliasTarget{HostedZoneID: zoneID(a.HostedZoneID), DNSName: a.DNSName, EvaluateTargetHealth: a.EvaluateTargetHealth}
	}
	return r
}

func tagsXML(tags []state.Tag) []xmlTag {
	out := make([]xmlTag, len(tags))
	for i, t := range tags {
		out[i] = xmlTag{Key: t.Key, Value: t.Value}
	}
	return out
}

// Encode writes a response document with Route53's XML declaration.
func Encode(doc any) ([]byte, error) {
	b, err := xml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), b...), nil
}
