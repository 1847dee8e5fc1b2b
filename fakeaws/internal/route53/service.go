package route53

import (
	"encoding/xml"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// Page sizes: Route53's defaults and maxima of MaxItems.
const (
	MaxZonesPerPage       = 100
	MaxRecordSetsPerPage  = 300
	MaxTagResourcesPerReq = 10
)

// Service serves Route53 over a store.
type Service struct{ st *state.Store }

// New returns the Route53 service of st.
func New(st *state.Store) *Service { return &Service{st: st} }

// Output is a successful answer: the status (200, or 201 for a created zone), its Location, and the
// document to encode; for the call recorder, the zone a CreateHostedZone made and the changes a
// ChangeResourceRecordSets applied (names canonical).
type Output struct {
	Status   int
	Location string
	Doc      any
	ZoneID   string
	Changes  []state.RecordChange
}

type handler func(s *Service, now time.Time, r Route, q url.Values, body []byte) (Output, error)

var handlers = map[string]handler{
	"CreateHostedZone":         (*Service).createZone,
	"GetHostedZone":            (*Service).getZone,
	"DeleteHostedZone":         (*Service).deleteZone,
	"ListHostedZones":          (*Service).listZones,
	"ListHostedZonesByName":    (*Service).listZonesByName,
	"GetHostedZoneCount":       (*Service).zoneCount,
	"ChangeResourceRecordSets": (*Service).changeRecordSets,
	"ListResourceRecordSets":   (*Service).listRecordSets,
	"GetChange":                (*Service).getChange,
	"ChangeTagsForResource":    (*Service).changeTags,
	"ListTagsForResource":      (*Service).listTags,
	"ListTagsForResources":     (*Service).listTagsForResources,
}

// Operations lists the operations the service serves, sorted.
func (s *Service) Operations() []string {
	return slices.Sorted(maps.Keys(handlers))
}

// Serve runs a resolved request at scenario time now.
func (s *Service) Serve(now time.Time, r Route, q url.Values, body []byte) (Output, error) {
	h, ok := handlers[r.Operation]
	if !ok {
		return Output{}, query.Errorf("InvalidInput", "Route53 operation %s is not supported", r.Operation)
	}
	return h(s, now, r, q, body)
}

func ok(doc any) (Output, error) { return Output{Status: http.StatusOK, Doc: doc}, nil }

// decode reads a request document; a body that does not parse is InvalidInput, as Route53 answers.
func decode(body []byte, v any) error {
	if err := xml.Unmarshal(body, v); err != nil {
		return query.Errorf("InvalidInput", "Could not parse the request body: %v", err.Error())
	}
	return nil
}

// maxItems parses a MaxItems query parameter: def when absent, at most limit (Route53 caps larger values).
func maxItems(q url.Values, def int) (int, error) {
	v := q.Get("maxitems")
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, query.Errorf("InvalidInput", "1 validation error detected: Value '%s' at 'maxItems' failed to satisfy constraint: Member must be a positive integer", v)
	}
	return min(n, def), nil
}

func (s *Service) getChange(now time.Time, r Route, _ url.Values, _ []byte) (Output, error) {
	c, err := s.st.Change(r.ChangeID, now)
	if err != nil {
		return Output{}, err
	}
	return ok(&struct {
		XMLName    xml.Name      `xml:"https://route53.amazonaws.com/doc/2013-04-01/ GetChangeResponse"`
		ChangeInfo xmlChangeInfo `xml:"ChangeInfo"`
	}{ChangeInfo: changeXML(c)})
}
