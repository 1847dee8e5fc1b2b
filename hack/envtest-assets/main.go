// Command envtest-assets builds kube-apiserver and etcd (and, with --with, kube-controller-manager or kube-scheduler)
// from the modules embedded in internal/envtestassets into a directory: the Makefile's
// envtest-assets and cluster-assets targets. It is `restartsim assets --dir` without compiling
// all of restartsim first, and builds from the same files with the same code.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/restartsim/restartsim/internal/envtestassets"
)

func main() {
	dir := flag.String("dir", "", "directory to build into (default: the user cache, "+"restartsim/k8s/"+envtestassets.Version+")")
	with := flag.String("with", "", "optional binaries to build too, comma-separated: "+strings.Join(envtestassets.Optional, ", "))
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := envtestassets.BuildOptions{Dir: *dir, Progress: os.Stderr}
	if *with != "" {
		o.With = strings.Split(*with, ",")
	}
	if _, err := envtestassets.Ensure(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
