// Package throttle is client-side throttling of AWS SDK calls, configured by a throttlespec.Config. One golang.org/x/time/rate limiter per
// pattern is shared by every operation the pattern matches; an override for a service replaces
// that service's defaults.
package throttle
