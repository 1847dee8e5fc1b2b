package route53

import (
	"encoding/xml"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// ParseChangeBatch decodes a ChangeResourceRecordSets body into the batch's comment and changes.
func ParseChangeBatch(body []byte) (string, []state.RecordChange, error) {
	var req changeBatchRequest
	if err := decode(body, &req); err != nil {
		return "", nil, err
	}
	if len(req.ChangeBatch.Comment) > state.MaxCommentChars {
		return "", nil, state.TooLong("changeBatch.comment", state.MaxCommentChars)
	}
	cs := req.ChangeBatch.Changes
	if len(cs) == 0 {
		return "", nil, query.Errorf("InvalidInput", "1 validation error detected: Value null at 'changeBatch.changes' failed to satisfy constraint: Member must not be null")
	}
	out := make([]state.RecordChange, len(cs))
	for i, c := range cs {
		out[i] = state.RecordChange{Action: c.Action, Set: c.ResourceRecordSet.state()}
	}
	return req.ChangeBatch.Comment, out, nil
}

func (s *Service) changeRecordSets(now time.Time, r Route, _ url.Values, body []byte) (Output, error) {
	comment, changes, err := ParseChangeBatch(body)
	if err != nil {
		return Output{}, err
	}
	c, err := s.st.ChangeRecordSets(r.ZoneID, comment, changes, now)
	if err != nil {
		return Output{}, err
	}
	out, err := ok(&struct {
		XMLName    xml.Name      `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ChangeResourceRecordSetsResponse"`
		ChangeInfo xmlChangeInfo `xml:"ChangeInfo"`
	}{ChangeInfo: changeXML(c)})
	out.Changes = changes // canonicalized by the store
	return out, err
}

// listRecordSets pages in Route53's order; StartRecordType needs StartRecordName, and StartRecordIdentifier
// needs both.
func (s *Service) listRecordSets(_ time.Time, r Route, q url.Values, _ []byte) (Output, error) {
	max, err := maxItems(q, MaxRecordSetsPerPage)
	if err != nil {
		return Output{}, err
	}
	name, typ, id := q.Get("name"), q.Get("type"), q.Get("identifier")
	switch {
	case typ != "" && name == "":
		return Output{}, query.Errorf("InvalidInput", "The input is not valid: StartRecordType requires StartRecordName")
	case id != "" && typ == "":
		return Output{}, query.Errorf("InvalidInput", "The input is not valid: StartRecordIdentifier requires StartRecordType")
	case len(name) > state.MaxDNSNameChars:
		return Output{}, state.TooLong("startRecordName", state.MaxDNSNameChars)
	case name != "" && state.NameFault(name) != "":
		return Output{}, query.Errorf("InvalidInput", "%s", state.NameFault(name))
	case typ != "" && !slices.Contains(state.RecordTypes, typ):
		return Output{}, query.Errorf("InvalidInput", "1 validation error detected: Value '%s' at 'startRecordType' failed to satisfy constraint: Member must satisfy enum value set: %v", typ, state.RecordTypes)
	case len(id) > state.MaxSetIDChars:
		return Output{}, state.TooLong("startRecordIdentifier", state.MaxSetIDChars)
	}
	sets, next, err := s.st.RecordSets(r.ZoneID, name, typ, id, max)
	if err != nil {
		return Output{}, err
	}
	doc := &struct {
		XMLName              xml.Name       `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListResourceRecordSetsResponse"`
		ResourceRecordSets   []xmlRecordSet `xml:"ResourceRecordSets>ResourceRecordSet"`
		IsTruncated          bool           `xml:"IsTruncated"`
		NextRecordName       string         `xml:"NextRecordName,omitempty"`
		NextRecordType       string         `xml:"NextRecordType,omitempty"`
		NextRecordIdentifier string         `xml:"NextRecordIdentifier,omitempty"`
		MaxItems             string         `xml:"MaxItems"`
	}{IsTruncated: next != nil, MaxItems: strconv.Itoa(max)}
	for _, rs := range sets {
		doc.ResourceRecordSets = append(doc.ResourceRecordSets, recordSetXML(rs))
	}
	if next != nil {
		doc.NextRecordName, doc.NextRecordType, doc.NextRecordIdentifier = next.Name, next.Type, next.SetIdentifier
	}
	return ok(doc)
}
