package main

import (
	"fmt"
	"io"
	"sort"
	"time"
)

// report is what a soak measured.
type report struct {
	hostilePhase, mixedPhase              time.Duration
	idle, afterHostile, afterMixed, quiet sample
	hostileRequests                       int64
	mixed                                 map[string]int64
	peakRSS                               float64 // anonymous
	peakBodyBytes                         float64 // fakeaws_inflight_body_bytes
	slowestHealthz                        time.Duration
	firstErrors                           map[string]string
}

const mib = 1 << 20

func (r report) write(w io.Writer) {
	hostileReq := r.afterHostile.requests - r.idle.requests
	mixedReq := r.afterMixed.requests - r.afterHostile.requests
	fmt.Fprintf(w, "fakeaws soak: hostile-only phase %v, mixed phase %v, then %v quiet\n", r.hostilePhase, r.mixedPhase, "35s")
	fmt.Fprintf(w, "hostile only: %.0f requests answered (unsigned 1 MiB), server CPU %.2f s, %.2f ms per request\n",
		hostileReq, r.afterHostile.cpuSeconds-r.idle.cpuSeconds, perRequestMS(r.afterHostile.cpuSeconds-r.idle.cpuSeconds, hostileReq))
	fmt.Fprintf(w, "mixed: %.0f requests recorded, server CPU %.2f s, %.3f ms per request\n",
		mixedReq, r.afterMixed.cpuSeconds-r.afterHostile.cpuSeconds, perRequestMS(r.afterMixed.cpuSeconds-r.afterHostile.cpuSeconds, mixedReq))
	kinds := make([]string, 0, len(r.mixed))
	for k := range r.mixed {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "  %-36s %d\n", k, r.mixed[k])
	}
	fmt.Fprintf(w, "RSS (all): idle %.1f MiB, after mixed %.1f MiB, quiet %.1f MiB (most of it the executable's shared pages)\n",
		r.idle.rssBytes/mib, r.afterMixed.rssBytes/mib, r.quiet.rssBytes/mib)
	fmt.Fprintf(w, "RSS (anonymous): idle %.1f MiB, after hostile %.1f MiB, peak mixed %.1f MiB, after mixed %.1f MiB, quiet %.1f MiB\n",
		r.idle.anonBytes/mib, r.afterHostile.anonBytes/mib, r.peakRSS/mib, r.afterMixed.anonBytes/mib, r.quiet.anonBytes/mib)
	for k, e := range r.firstErrors {
		fmt.Fprintf(w, "  first %s: %s\n", k, e)
	}
	fmt.Fprintf(w, "request bodies: peak %.1f MiB held, %.0f requests refused by the body limits; slowest /healthz during mixed %v\n",
		r.peakBodyBytes/mib, r.afterMixed.bodyRefusals-r.afterHostile.bodyRefusals, r.slowestHealthz.Round(time.Millisecond))
	fmt.Fprintf(w, "goroutines: idle %.0f, after mixed %.0f, quiet %.0f\n", r.idle.goroutines, r.afterMixed.goroutines, r.quiet.goroutines)
	fmt.Fprintf(w, "recorder: %.0f calls dropped (ring of the default size)\n", r.quiet.dropped)
}

func perRequestMS(cpuSeconds, requests float64) float64 {
	if requests == 0 {
		return 0
	}
	return 1000 * cpuSeconds / requests
}

// problems lists what the soak must not see: an unsigned hostile request costing 50 ms or more, RSS
// over 64 MiB, /healthz slower than 5 s, goroutines not back near idle once the timeouts have run, valid
// calls failing.
func (r report) problems() string {
	var msg string
	if ms := perRequestMS(r.afterHostile.cpuSeconds-r.idle.cpuSeconds, r.afterHostile.requests-r.idle.requests); ms >= 50 {
		msg += fmt.Sprintf("an unsigned hostile request cost %.1f ms of CPU (limit 50)\n", ms)
	}
	if peak := max(r.peakRSS, r.quiet.anonBytes); peak > 64*mib {
		msg += fmt.Sprintf("anonymous RSS reached %.1f MiB (limit 64)\n", peak/mib)
	}
	if r.slowestHealthz > 5*time.Second {
		msg += fmt.Sprintf("/healthz took %v during the mixed phase (limit 5s)\n", r.slowestHealthz.Round(time.Millisecond))
	}
	if r.quiet.goroutines > r.idle.goroutines+10 {
		msg += fmt.Sprintf("%.0f goroutines once quiet, %.0f when idle\n", r.quiet.goroutines, r.idle.goroutines)
	}
	if r.mixed["valid ok"] == 0 || r.mixed["valid failed"] > 0 || r.mixed["valid setup failed"] > 0 {
		msg += fmt.Sprintf("valid calls: %d ok, %d failed, %d set-ups failed\n", r.mixed["valid ok"], r.mixed["valid failed"], r.mixed["valid setup failed"])
	}
	return msg
}
