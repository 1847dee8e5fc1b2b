package route53

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// Version is the Route53 API version, the first segment of every path.
const Version = "2013-04-01"

// PathPrefix starts the path of every Route53 request.
const PathPrefix = "/" + Version + "/"

// Route is a resolved request: its operation and the IDs its path names.
type Route struct {
	Operation string
	// ZoneID is the hosted zone of the path (without "/hostedzone/"), ChangeID the change (without
	// "/change/"); ResourceType and ResourceID are a tags path's.
	ZoneID, ChangeID, ResourceType, ResourceID string
}

// Resolve maps a method and escaped path to an operation; an unknown path is InvalidInput, like a request
// Route53 cannot bind.
func Resolve(method, escapedPath string) (Route, *query.Error) {
	rest, ok := strings.CutPrefix(escapedPath, PathPrefix)
	if !ok {
		return Route{}, query.Errorf("InvalidInput", "Unknown API version in path %s", escapedPath)
	}
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	for i, s := range segs {
		u, err := url.PathUnescape(s)
		if err != nil {
			return Route{}, query.Errorf("InvalidInput", "Malformed path %s", escapedPath)
		}
		segs[i] = u
	}
	r, ok := resolve(method, segs)
	if !ok {
		return Route{}, query.Errorf("InvalidInput", "Route53 has no operation for %s %s", method, escapedPath)
	}
	return r, nil
}

func resolve(method string, segs []string) (Route, bool) {
	get, post, del := method == http.MethodGet, method == http.MethodPost, method == http.MethodDelete
	switch {
	case len(segs) == 1 && segs[0] == "hostedzone" && post:
		return Route{Operation: "CreateHostedZone"}, true
	case len(segs) == 1 && segs[0] == "hostedzone" && get:
		return Route{Operation: "ListHostedZones"}, true
	case len(segs) == 1 && segs[0] == "hostedzonesbyname" && get:
		return Route{Operation: "ListHostedZonesByName"}, true
	case len(segs) == 1 && segs[0] == "hostedzonecount" && get:
		return Route{Operation: "GetHostedZoneCount"}, true
	case len(segs) == 2 && segs[0] == "hostedzone" && get:
		return Route{Operation: "GetHostedZone", ZoneID: zoneID(segs[1])}, true
	case len(segs) == 2 && segs[0] == "hostedzone" && del:
		return Route{Operation: "DeleteHostedZone", ZoneID: zoneID(segs[1])}, true
	case len(segs) == 3 && segs[0] == "hostedzone" && segs[2] == "rrset" && get:
		return Route{Operation: "ListResourceRecordSets", ZoneID: zoneID(segs[1])}, true
	case len(segs) == 3 && segs[0] == "hostedzone" && segs[2] == "rrset" && post:
		return Route{Operation: "ChangeResourceRecordSets", ZoneID: zoneID(segs[1])}, true
	case len(segs) == 2 && segs[0] == "change" && get:
		return Route{Operation: "GetChange", ChangeID: strings.TrimPrefix(segs[1], "/change/")}, true
	case len(segs) == 2 && segs[0] == "tags" && post:
		return Route{Operation: "ListTagsForResources", ResourceType: segs[1]}, true
	case len(segs) == 3 && segs[0] == "tags" && (get || post):
		op := "ListTagsForResource"
		if post {
			op = "ChangeTagsForResource"
		}
		return Route{Operation: op, ResourceType: segs[1], ResourceID: zoneID(segs[2])}, true
	}
	return Route{}, false
}

// zoneID strips the "/hostedzone/" prefix that Route53 returns in IDs and clients pass back.
func zoneID(s string) string { return strings.TrimPrefix(s, "/hostedzone/") }

// Zone is the hosted zone a request names, if any: what the call recorder keeps.
func (r Route) Zone() string {
	if r.ZoneID != "" {
		return r.ZoneID
	}
	if r.ResourceType == "hostedzone" {
		return r.ResourceID
	}
	return ""
}
