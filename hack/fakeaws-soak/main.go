// Command fakeaws-soak runs `restartsim fakeaws` as its own process on loopback and drives it with
// hostile and valid traffic for a bounded time, then reports what the server paid: resident memory,
// CPU per request, goroutines and recorder drops before and after, read from the server's own
// /_restartsim/metrics.
//
//	go run ./hack/fakeaws-soak -binary bin/restartsim -duration 2m -out out/soak/fakeaws-soak.txt
//
// Phases: idle (baseline), hostile only (unsigned 1 MiB bodies whose form would be costly to decode:
// CPU per hostile request), mixed (valid SDK clients beside every hostile kind: slow bodies, signed-looking
// slow bodies, signed-looking connections that send the headers of a 1 MiB body and then nothing, idle
// connections) for -duration, then quiet until the server's read and idle timeouts have closed what the
// hostile clients left open.
//
// With -probe NAME it runs one hostile pattern alone against a fresh server instead and prints what the
// server paid, to compare two binaries:
//
//	go run ./hack/fakeaws-soak -binary /tmp/restartsim-before -probe header-only
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	binary := flag.String("binary", "bin/restartsim", "the restartsim binary to soak")
	duration := flag.Duration("duration", 2*time.Minute, "length of the mixed phase")
	hostileOnly := flag.Duration("hostile-phase", 15*time.Second, "length of the hostile-only phase")
	out := flag.String("out", "", "also write the report to this file")
	probe := flag.String("probe", "", "instead of the soak, run one hostile pattern alone and print its figures: "+probeNames())
	flag.Parse()
	if *probe != "" {
		if err := runProbe(*binary, *probe, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "fakeaws-soak:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*binary, *hostileOnly, *duration, *out); err != nil {
		fmt.Fprintln(os.Stderr, "fakeaws-soak:", err)
		os.Exit(1)
	}
}

func run(binary string, hostileOnly, mixed time.Duration, outFile string) error {
	srv, err := startServer(binary)
	if err != nil {
		return err
	}
	defer srv.stop()
	ctx := context.Background()
	var rep report
	time.Sleep(2 * time.Second)
	if rep.idle, err = srv.scrape(); err != nil {
		return err
	}

	hostile := &load{}
	phase(ctx, hostileOnly, func(ctx context.Context) { hostile.unsignedLarge(ctx, srv.url, 2) })
	if rep.afterHostile, err = srv.scrape(); err != nil {
		return err
	}
	rep.hostileRequests = hostile.total()

	mixedLoad := &load{}
	peak := srv.watchPeak()
	health := watchHealthz(srv.url)
	phase(ctx, mixed, func(ctx context.Context) {
		go mixedLoad.unsignedLarge(ctx, srv.url, 1)
		go mixedLoad.signedHostile(ctx, srv.url, srv.creds)
		go mixedLoad.slowConnections(ctx, srv, 64, false)
		go mixedLoad.slowConnections(ctx, srv, 64, true)
		go mixedLoad.headerOnlyConnections(ctx, srv, 128)
		go mixedLoad.idleConnections(ctx, srv.addr, 64)
		mixedLoad.valid(ctx, srv.url, srv.creds, 4)
	})
	rep.slowestHealthz = health()
	p := peak()
	rep.peakRSS, rep.peakBodyBytes = p.anon, p.bodyBytes
	if rep.afterMixed, err = srv.scrape(); err != nil {
		return err
	}
	rep.mixed, rep.firstErrors = mixedLoad.snapshot(), mixedLoad.errs
	time.Sleep(srv.quietFor) // the read and idle timeouts close what the hostile clients left open
	if rep.quiet, err = srv.scrape(); err != nil {
		return err
	}
	rep.hostilePhase, rep.mixedPhase = hostileOnly, mixed

	var w io.Writer = os.Stdout
	if outFile != "" {
		if err := os.MkdirAll(filepath.Dir(outFile), 0o755); err != nil {
			return err
		}
		f, err := os.Create(outFile)
		if err != nil {
			return err
		}
		defer f.Close()
		w = io.MultiWriter(os.Stdout, f)
	}
	rep.write(w)
	if msg := rep.problems(); msg != "" {
		return fmt.Errorf("%s", strings.TrimSpace(msg))
	}
	return nil
}

// phase runs fn until d has passed.
func phase(parent context.Context, d time.Duration, fn func(ctx context.Context)) {
	ctx, cancel := context.WithTimeout(parent, d)
	defer cancel()
	fn(ctx)
	<-ctx.Done()
}
