package sim

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// upstreamThrottle is the controller's default client-side throttle (LBC's defaults).
const upstreamThrottle = "Elastic Load Balancing v2:^RegisterTargets|^DeregisterTargets=4:20," +
	"Elastic Load Balancing v2:^Describe.*=50:200,Elastic Load Balancing v2:^Modify.*=3:20"

var throttleEntry = regexp.MustCompile(`^([^:=]+):([^=]+)=([^:]+):([^:]+)$`)

// scaleThrottle merges a strategy's client-side throttle over the upstream defaults (a service in
// spec replaces that service's defaults, as the controller does) and multiplies every rate by
// scale, so the client keeps pace with fakeaws' scaled token buckets.
func scaleThrottle(spec string, scale float64) (string, error) {
	type entry struct {
		svc, ptn string
		rate     float64
		burst    string
	}
	parse := func(s string) ([]entry, error) {
		var out []entry
		if strings.TrimSpace(s) == "" {
			return nil, nil
		}
		for _, e := range strings.Split(s, ",") {
			m := throttleEntry.FindStringSubmatch(strings.TrimSpace(e))
			if m == nil {
				return nil, fmt.Errorf("throttle %q: want serviceID:operationRegex=rate:burst", e)
			}
			r, err := strconv.ParseFloat(m[3], 64)
			if err != nil || r <= 0 {
				return nil, fmt.Errorf("throttle %q: rate must be a positive number", e)
			}
			if _, err := regexp.Compile(m[2]); err != nil {
				return nil, fmt.Errorf("throttle %q: %v", e, err)
			}
			out = append(out, entry{m[1], m[2], r, m[4]})
		}
		return out, nil
	}
	defs, _ := parse(upstreamThrottle)
	user, err := parse(spec)
	if err != nil {
		return "", err
	}
	overridden := map[string]bool{}
	for _, e := range user {
		overridden[e.svc] = true
	}
	var all []entry
	for _, e := range defs {
		if !overridden[e.svc] {
			all = append(all, e)
		}
	}
	all = append(all, user...)
	parts := make([]string, len(all))
	for i, e := range all {
		parts[i] = fmt.Sprintf("%s:%s=%s:%s", e.svc, e.ptn, strconv.FormatFloat(e.rate*scale, 'f', -1, 64), e.burst)
	}
	return strings.Join(parts, ","), nil
}
