// Package throttle is client-side throttling of AWS SDK calls in the AWS Load Balancer Controller's
// flag format: `serviceID:operationRegex=rate:burst,...`. One golang.org/x/time/rate limiter per
// pattern is shared by every operation the pattern matches; an override for a service replaces
// that service's defaults.
package throttle
