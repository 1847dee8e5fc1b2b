package sut

import "github.com/restartsim/restartsim/internal/throttlespec"

// scaleThrottle merges a strategy's client-side throttle over the upstream defaults (a service in
// spec replaces that service's defaults, as the controller does) and multiplies every rate by
// scale, so the client keeps pace with fakeaws' scaled token buckets.
func scaleThrottle(spec string, scale float64) (string, error) {
	cfg, err := throttlespec.Scaled(spec, scale)
	if err != nil {
		return "", err
	}
	return cfg.String(), nil
}
