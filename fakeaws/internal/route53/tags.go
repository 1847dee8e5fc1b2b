package route53

import (
	"encoding/xml"
	"net/url"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// checkTagType accepts the resource types Route53 tags; fakeaws has hosted zones only, so a health check is
// never found.
func checkTagType(typ, id string) error {
	switch typ {
	case "hostedzone":
		return nil
	case "healthcheck":
		return query.Errorf("NoSuchHealthCheck", "No health check exists with the specified ID %s", id)
	}
	return query.Errorf("InvalidInput", "1 validation error detected: Value '%s' at 'resourceType' failed to satisfy constraint: Member must satisfy enum value set: [healthcheck, hostedzone]", typ)
}

func (s *Service) changeTags(_ time.Time, r Route, _ url.Values, body []byte) (Output, error) {
	if err := checkTagType(r.ResourceType, r.ResourceID); err != nil {
		return Output{}, err
	}
	var req changeTagsRequest
	if err := decode(body, &req); err != nil {
		return Output{}, err
	}
	add := make([]state.Tag, len(req.AddTags))
	for i, t := range req.AddTags {
		switch {
		case t.Key == "":
			return Output{}, query.Errorf("InvalidInput", "A tag key must not be empty")
		case len(t.Key) > state.MaxTagKeyChars:
			return Output{}, state.TooLong("addTags.member.key", state.MaxTagKeyChars)
		case len(t.Value) > state.MaxTagValueChars:
			return Output{}, state.TooLong("addTags.member.value", state.MaxTagValueChars)
		}
		add[i] = state.Tag{Key: t.Key, Value: t.Value}
	}
	if err := s.st.ChangeZoneTags(r.ResourceID, add, req.RemoveTagKeys); err != nil {
		return Output{}, err
	}
	return ok(&struct {
		XMLName xml.Name `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ChangeTagsForResourceResponse"`
	}{})
}

func (s *Service) tagSet(typ, id string) (xmlTagSet, error) {
	if err := checkTagType(typ, id); err != nil {
		return xmlTagSet{}, err
	}
	z, err := s.st.HostedZone(id)
	if err != nil {
		return xmlTagSet{}, err
	}
	return xmlTagSet{ResourceType: typ, ResourceID: id, Tags: tagsXML(z.Tags)}, nil
}

func (s *Service) listTags(_ time.Time, r Route, _ url.Values, _ []byte) (Output, error) {
	set, err := s.tagSet(r.ResourceType, r.ResourceID)
	if err != nil {
		return Output{}, err
	}
	return ok(&struct {
		XMLName        xml.Name  `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListTagsForResourceResponse"`
		ResourceTagSet xmlTagSet `xml:"ResourceTagSet"`
	}{ResourceTagSet: set})
}

func (s *Service) listTagsForResources(_ time.Time, r Route, _ url.Values, body []byte) (Output, error) {
	var req listTagsRequest
	if err := decode(body, &req); err != nil {
		return Output{}, err
	}
	if n := len(req.ResourceIDs); n == 0 || n > MaxTagResourcesPerReq {
		return Output{}, query.Errorf("InvalidInput", "1 validation error detected: Value at 'resourceIds' failed to satisfy constraint: Member must have length between 1 and %d", MaxTagResourcesPerReq)
	}
	doc := &struct {
		XMLName         xml.Name    `xml:"https://route53.amazonaws.com/doc/2013-04-01/ ListTagsForResourcesResponse"`
		ResourceTagSets []xmlTagSet `xml:"ResourceTagSets>ResourceTagSet"`
	}{}
	for _, id := range req.ResourceIDs {
		set, err := s.tagSet(r.ResourceType, zoneID(id))
		if err != nil {
			return Output{}, err
		}
		doc.ResourceTagSets = append(doc.ResourceTagSets, set)
	}
	return ok(doc)
}
