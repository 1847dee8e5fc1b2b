// Command envtest-assets makes kube-apiserver and etcd ready in a directory: linked from
// setup-envtest's store after a download from its release index, or, when that fails or with
// --source, built from the modules embedded in internal/envtestassets (kube-controller-manager and
// kube-scheduler, with --with, always are). It is the Makefile's envtest-assets, cluster-assets and
// scheduler-assets targets: `restartsim assets --dir` without compiling all of restartsim first,
// through the same code.
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
	dir := flag.String("dir", "", "directory to fill (default: the user cache, "+"restartsim/k8s/"+envtestassets.Version+")")
	with := flag.String("with", "", "optional binaries to build too, comma-separated: "+strings.Join(envtestassets.Optional, ", "))
	source := flag.Bool("source", false, "build from source, without trying the envtest release index")
	index := flag.String("index", "", "envtest release index (default: $"+envtestassets.IndexEnvVar+", else setup-envtest's)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	o := envtestassets.InstallOptions{Source: *source,
		Fetch: envtestassets.FetchOptions{IndexURL: *index},
		Build: envtestassets.BuildOptions{Dir: *dir, Progress: os.Stderr}}
	if *with != "" {
		o.Build.With = strings.Split(*with, ",")
	}
	in, err := envtestassets.Install(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	if in.How == "downloaded" {
		fmt.Fprintf(os.Stderr, "kube-apiserver, etcd v%s ready in %s (downloaded)\n", in.Version, in.Dir)
	}
}
