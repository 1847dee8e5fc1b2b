package ec2

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/catalog"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// describeSpotPriceHistory answers each catalog type's current spot price in each zone (catalog's
// SpotPrice: deterministic, constant), stamped at the start of the scenario hour, for the requested
// product descriptions (default Linux/UNIX).
func (s *Service) describeSpotPriceHistory(now time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	types, products, zone := f.Strings("InstanceType"), f.Strings("ProductDescription"), f.Get("AvailabilityZone")
	if len(products) == 0 {
		products = []string{"Linux/UNIX"}
	}
	stamp := now.UTC().Truncate(time.Hour)
	var matched []xSpotPrice
	for _, t := range catalog.All() {
		if len(types) > 0 && !slices.Contains(types, t.Name) {
			continue
		}
		for _, z := range s.st.Zones() {
			if zone != "" && z.Name != zone {
				continue
			}
			for _, p := range products {
				price := strconv.FormatFloat(t.SpotPrice(z.Name), 'f', 6, 64)
				a := func(name string) ([]string, bool) {
					switch name {
					case "instance-type":
						return []string{t.Name}, true
					case "availability-zone":
						return []string{z.Name}, true
					case "product-description":
						return []string{p}, true
					case "spot-price":
						return []string{price}, true
					}
					return nil, false
				}
				if ok, err := match(fs, a); err != nil {
					return nil, err
				} else if ok {
					matched = append(matched, xSpotPrice{AvailabilityZone: z.Name, AvailabilityZoneID: z.ID, InstanceType: t.Name,
						ProductDescription: p, SpotPrice: price, Timestamp: stamp.Format(time.RFC3339)})
				}
			}
		}
	}
	// EC2 does not bound this call's page size (Karpenter asks for 2,000).
	start, end, next, err := pageRange(f, len(matched), 1, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	return &describeSpotPriceHistoryResponse{NextToken: next, Prices: slices.Clip(matched[start:end])}, nil
}

type describeSpotPriceHistoryResponse struct {
	query.EC2Meta
	Prices    []xSpotPrice `xml:"spotPriceHistorySet>item"`
	NextToken string       `xml:"nextToken,omitempty"`
}

type xSpotPrice struct {
	AvailabilityZone   string `xml:"availabilityZone"`
	AvailabilityZoneID string `xml:"availabilityZoneId"`
	InstanceType       string `xml:"instanceType"`
	ProductDescription string `xml:"productDescription"`
	SpotPrice          string `xml:"spotPrice"`
	Timestamp          string `xml:"timestamp"`
}
