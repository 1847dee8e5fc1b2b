package scenario

import (
	"fmt"
	"regexp"
	"strings"
	"text/template"

	"github.com/restartsim/restartsim/sim/objects"
)

// MaxHostedZones is the most zones aws.hostedZones may seed: Route53's default quota of hosted zones per
// account, which fakeaws enforces.
const MaxHostedZones = 500

// HostedZones seeds Route53 public hosted zones from a name template.
type HostedZones struct {
	// Count is the number of zones, 1 to 500 (Route53's default quota per account). Required.
	Count int `json:"count"`
	// Name is a Go template over {{.Index}} (0 … count-1) giving each zone's domain name, e.g.
	// zone-{{.Index}}.example.com; the names must be distinct. Required.
	Name string `json:"name"`
}

// dnsName is a domain name as Route53 takes a zone's: lower-case labels of letters, digits and hyphens.
var dnsName = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\.)+[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// Names renders the zones' domain names (without a trailing dot), in index order.
func (h *HostedZones) Names() ([]string, error) {
	t, err := objects.ParseBounded(template.New("name").Option("missingkey=error"), h.Name)
	if err != nil {
		return nil, err
	}
	names := make([]string, h.Count)
	seen := make(map[string]int, h.Count)
	for i := range names {
		// A domain name has at most 255 bytes: a longer render is refused as it grows.
		b := boundedBuilder{limit: 1024}
		if err := objects.ExecuteBounded(t, &b, struct{ Index int }{i}); err != nil {
			return nil, fmt.Errorf("zone %d: %w", i, err)
		}
		n := strings.TrimSuffix(b.String(), ".")
		if len(n) > 253 || !dnsName.MatchString(n) {
			return nil, fmt.Errorf("zone %d: %s is not a domain name (lower-case labels of a-z, 0-9 and -, at least two)", i, clipQuoted(n))
		}
		if j, dup := seen[n]; dup {
			return nil, fmt.Errorf("zones %d and %d are both named %s", j, i, clipQuoted(n))
		}
		seen[n] = i
		names[i] = n
	}
	return names, nil
}

func (v *validator) validateHostedZones(h *HostedZones) {
	if h == nil {
		return
	}
	if h.Count < 1 || h.Count > MaxHostedZones {
		v.addf("aws.hostedZones.count", "must be between 1 and %d, got %d", MaxHostedZones, h.Count)
		return
	}
	if h.Name == "" {
		v.addf("aws.hostedZones.name", "required: a template such as zone-{{.Index}}.example.com")
		return
	}
	if _, err := h.Names(); err != nil {
		v.addf("aws.hostedZones.name", "%v", err)
	}
}
