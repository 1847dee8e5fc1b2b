package route53

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

type zoneDoc struct {
	HostedZone    xmlZone           `xml:"HostedZone"`
	ChangeInfo    *xmlChangeInfo    `xml:"ChangeInfo,omitempty"`
	DelegationSet *xmlDelegationSet `xml:"DelegationSet,omitempty"`
	VPC           *xmlVPC           `xml:"VPC,omitempty"`
	VPCs          []xmlVPC          `xml:"VPCs>VPC"`
}

func delegation(z state.HostedZone) *xmlDelegationSet {
	if z.PrivateZone {
		return nil
	}
	// The NS record set names the servers with a trailing dot; the delegation set, as in Route53's
	// examples, without.
	ns := make([]string, len(z.NameServers))
	for i, n := range z.NameServers {
		ns[i] = strings.TrimSuffix(n, ".")
	}
	return &xmlDelegationSet{NameServers: ns}
}

func (s *Service) createZone(now time.Time, _ Route, _ url.Values, body []byte) (Output, error) {
	var req createZoneRequest
	if err := decode(body, &req); err != nil {
		return Output{}, err
	}
	in := state.HostedZone{Name: req.Name, CallerReference: req.CallerReference}
	private := false
	if c := req.HostedZoneConfig; c != nil {
		in.Comment, private = c.Comment, c.PrivateZone
	}
	if v := req.VPC; v != nil {
		if v.VPCID == "" || v.VPCRegion == "" {
			return Output{}, query.Errorf("InvalidVPCId", "The VPC ID and region must both be given.")
		}
		in.VPCs = []state.ZoneVPC{{Region: v.VPCRegion, ID: v.VPCID}}
	} else if private {
		return Output{}, query.Errorf("InvalidInput", "When you're creating a private hosted zone (when you specify true for PrivateZone), you must also specify values for VPCId and VPCRegion.")
	}
	if req.DelegationSetID != "" {
		return Output{}, query.Errorf("NoSuchDelegationSet", "No reusable delegation set found with ID: %s", req.DelegationSetID)
	}
	z, c, err := s.st.CreateHostedZone(in, now)
	if err != nil {
		return Output{}, err
	}
	ci := changeXML(c)
	doc := &struct {
		XMLName xml.Name `xml:"https://route53.amazonaws.com/doc/2013-04-01/ CreateHostedZoneResponse"`
		zoneDoc
	}{zoneDoc: zoneDoc{HostedZone: zoneXML(z), ChangeInfo: &ci, DelegationSet: delegation(z)}}
	if len(in.VPCs) > 0 {
		doc.VPC = &vpcsXML(z)[0]
	}
	return Output{Status: http.StatusCreated, Location: "https://route53.amazonaws.com" + PathPrefix + "hostedzone/" + z.ID, Doc: doc, ZoneID: z.ID}, nil
}

func (s *Service) getZone(_ time.Time, r Route, _ url.Values, _ []byte) (Output, error) {
	z, err := s.st.HostedZone(r.ZoneID)
	if err != nil {
		return Output{}, err
	}
	return ok(&struct {
		XMLName xml.Name `xml:"https://route53.amazonaws.com/doc/2013-04-01/ GetHostedZoneResponse"`
		zoneDoc
	}{zoneDoc: zoneDoc{HostedZone: zoneXML(z), DelegationSet: delegation(z), VPCs: vpcsXML(z)}})
}

func (s *Service) deleteZone(now time.Time, r Route, _ url.Values, _ []byte) (Output, error) {
	c, err := s.st.DeleteHostedZone(r.ZoneID, now)
	if err != nil {
		return Output{}, err
	}
	return ok(&struct {
		XMLName    xml.Name      `xml:"https://route53.amazonaws.com/doc/2013-04-01/ DeleteHostedZoneResponse"`
		ChangeInfo xmlChangeInfo `xml:"ChangeInfo"`
	}{ChangeInfo: changeXML(c)})
}

func zonesXML(zs []state.HostedZone) []xmlZone {
	out := make([]xmlZone, len(zs))
	for i, z := range zs {
		out[i] = zoneXML(z)
	}
	return out
}

// listZones pages by zone ID: Marker is the ID of the first zone of the page.
func (s *Service) listZones(_ time.Time, _ Route, q url.Values, _ []byte) (Output, error) {
	max, err := maxItems(q, MaxZonesPerPage)
	if err != nil {
		return Output{}, err
	}
	zs, marker := s.st.HostedZones(), zoneID(q.Get("marker"))
	i := 0
	for i < len(zs) && zs[i].ID < marker {
		i++
	}
	end := min(len(zs), i+max)
	doc := &struct {
		XMLName     xml.Name  `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListHostedZonesResponse"`
		HostedZones []xmlZone `xml:"HostedZones>HostedZone"`
		Marker      string    `xml:"Marker"`
		IsTruncated bool      `xml:"IsTruncated"`
		NextMarker  string    `xml:"NextMarker,omitempty"`
		MaxItems    string    `xml:"MaxItems"`
	}{HostedZones: zonesXML(zs[i:end]), Marker: q.Get("marker"), IsTruncated: end < len(zs), MaxItems: strconv.Itoa(max)}
	if doc.IsTruncated {
		doc.NextMarker = zs[end].ID
	}
	return ok(doc)
}

// listZonesByName pages by (name, ID): DNSName and HostedZoneId name the first zone of the page.
func (s *Service) listZonesByName(_ time.Time, _ Route, q url.Values, _ []byte) (Output, error) {
	max, err := maxItems(q, MaxZonesPerPage)
	if err != nil {
		return Output{}, err
	}
	name, id := q.Get("dnsname"), zoneID(q.Get("hostedzoneid"))
	if id != "" && name == "" {
		return Output{}, query.Errorf("InvalidInput", "The DNSName must be specified when HostedZoneId is specified.")
	}
	zs := s.st.HostedZonesByName()
	i := 0
	if name != "" {
		start := state.NameOrder(state.CanonicalName(name))
		for i < len(zs) && (state.NameOrder(zs[i].Name) < start || zs[i].Name == state.CanonicalName(name) && zs[i].ID < id) {
			i++
		}
	}
	end := min(len(zs), i+max)
	doc := &struct {
		XMLName          xml.Name  `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListHostedZonesByNameResponse"`
		HostedZones      []xmlZone `xml:"HostedZones>HostedZone"`
		DNSName          string    `xml:"DNSName,omitempty"`
		HostedZoneID     string    `xml:"HostedZoneId,omitempty"`
		IsTruncated      bool      `xml:"IsTruncated"`
		NextDNSName      string    `xml:"NextDNSName,omitempty"`
		NextHostedZoneID string    `xml:"NextHostedZoneId,omitempty"`
		MaxItems         string    `xml:"MaxItems"`
	}{HostedZones: zonesXML(zs[i:end]), DNSName: name, HostedZoneID: q.Get("hostedzoneid"), IsTruncated: end < len(zs), MaxItems: strconv.Itoa(max)}
	if doc.IsTruncated {
		doc.NextDNSName, doc.NextHostedZoneID = zs[end].Name, "/hostedzone/"+zs[end].ID
	}
	return ok(doc)
}

func (s *Service) zoneCount(_ time.Time, _ Route, _ url.Values, _ []byte) (Output, error) {
	return ok(&struct {
		XMLName         xml.Name `xml:"https://route53.amazonaws.com/doc/2013-04-01/ GetHostedZoneCountResponse"`
		HostedZoneCount int      `xml:"HostedZoneCount"`
	}{HostedZoneCount: len(s.st.HostedZones())})
}
