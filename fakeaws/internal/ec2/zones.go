package ec2

import (
	"slices"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

func (s *Service) zoneAttrs(z state.Zone) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "zone-name":
			return []string{z.Name}, true
		case "zone-id":
			return []string{z.ID}, true
		case "zone-type":
			return []string{"availability-zone"}, true
		case "state":
			return []string{"available"}, true
		case "region-name", "group-name", "network-border-group":
			return []string{s.st.Region()}, true
		case "opt-in-status":
			return []string{"opt-in-not-required"}, true
		}
		return nil, false
	}
}

// describeAvailabilityZones lists the region's zones, by ZoneName or ZoneId and filters; an unknown
// name or ID is an error, as AWS's.
func (s *Service) describeAvailabilityZones(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	if _, err := f.Bool("AllAvailabilityZones", false); err != nil {
		return nil, query.Errorf("InvalidParameterValue", "Value (%s) for parameter allAvailabilityZones is invalid", f.Get("AllAvailabilityZones"))
	}
	zones := s.st.Zones()
	names, ids := f.Strings("ZoneName"), f.Strings("ZoneId")
	for _, n := range names {
		if !slices.ContainsFunc(zones, func(z state.Zone) bool { return z.Name == n }) {
			return nil, query.Errorf("InvalidParameterValue", "Invalid availability zone: [%s]", n)
		}
	}
	for _, id := range ids {
		if !slices.ContainsFunc(zones, func(z state.Zone) bool { return z.ID == id }) {
			return nil, query.Errorf("InvalidParameterValue", "Invalid availability zone ID: [%s]", id)
		}
	}
	res := &describeAvailabilityZonesResponse{Zones: []xZone{}}
	for _, z := range zones {
		if len(names)+len(ids) > 0 && !slices.Contains(names, z.Name) && !slices.Contains(ids, z.ID) {
			continue
		}
		if ok, err := match(fs, s.zoneAttrs(z)); err != nil {
			return nil, err
		} else if ok {
			res.Zones = append(res.Zones, xZone{ZoneName: z.Name, ZoneID: z.ID, ZoneType: "availability-zone", State: "available",
				RegionName: s.st.Region(), GroupName: s.st.Region(), NetworkBorderGroup: s.st.Region(), OptInStatus: "opt-in-not-required"})
		}
	}
	return res, nil
}

type xZone struct {
	ZoneName           string `xml:"zoneName"`
	ZoneID             string `xml:"zoneId"`
	ZoneType           string `xml:"zoneType"`
	State              string `xml:"zoneState"`
	RegionName         string `xml:"regionName"`
	GroupName          string `xml:"groupName"`
	NetworkBorderGroup string `xml:"networkBorderGroup"`
	OptInStatus        string `xml:"optInStatus"`
}

type describeAvailabilityZonesResponse struct {
	query.EC2Meta
	Zones []xZone `xml:"availabilityZoneInfo>item"`
}
