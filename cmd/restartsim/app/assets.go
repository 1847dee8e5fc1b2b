package app

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/internal/envtestassets"
)

func init() { subcommands = append(subcommands, newAssetsCommand) }

// assetsOptions are the flags of `restartsim assets`.
type assetsOptions struct {
	Dir    string
	Print  bool
	With   []string
	Source bool
	Index  string
}

func newAssetsCommand() *cobra.Command {
	o := &assetsOptions{}
	cmd := &cobra.Command{
		Use:   "assets",
		Short: "Find, download or build kube-apiserver and etcd (envtest's binaries), once per machine",
		Long: `Find kube-apiserver and etcd where restartsim looks for them ($KUBEBUILDER_ASSETS, setup-envtest's
store, a checkout's bin/k8s/<version>, the user cache, beside the executable); else download the newest
Kubernetes ` + envtestassets.SupportedRange() + ` release for this platform from setup-envtest's release index
(controller-tools' envtest archives, checked against the index's SHA-512) into setup-envtest's store,
shared with every envtest user: seconds. Only when that fails (no network, a proxy, a 404, a wrong
checksum, a broken archive, no answer within 4 s) does it say why in one line and build v` + envtestassets.Version + ` from
source with the go command through the Go module proxy into the user cache
(` + "`$XDG_CACHE_HOME/restartsim/k8s/<version>`" + `, ~/.cache/... by default): about 5 to 15 minutes once.
A second run with the binaries in place takes well under a second and makes no request. The index
is --index, else $` + envtestassets.IndexEnvVar + `, else setup-envtest's. With --dir, a download is linked into
the directory. The envtest archives hold no kube-controller-manager: --with builds it from source
beside them. It works from a ` + "`go install`" + `ed binary: the Go modules it builds from are inside it.
Exit codes: 0 ready, 1 a build failed, 2 bad flags or no go command.`,
		Example: `  # Once per machine (or per CI cache), then every verb finds them
  restartsim assets

  # From a mirror of the envtest release index, or from source without trying one
  restartsim assets --index https://mirror.example/envtest-releases.yaml
  restartsim assets --source

  # For go test and other envtest users
  export KUBEBUILDER_ASSETS=$(restartsim assets --print)

  # Also kube-controller-manager, for restartsim cluster up, into a directory of your choice
  restartsim assets --with kube-controller-manager --dir ./k8s

  # Also kube-scheduler, for scenarios that set cluster.scheduler (pods bound to simulated nodes)
  restartsim assets --with kube-scheduler`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return badInput(err)
			}
			return o.run(cmd, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the flags.
func (o *assetsOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Dir, "dir", "", "make the binaries ready in this directory, a download linked from the store (default: found where restartsim looks, else into $KUBEBUILDER_ASSETS when set, else setup-envtest's store or, built, the user cache)")
	fs.BoolVar(&o.Print, "print", false, "print only the directory on stdout (progress stays on stderr), for KUBEBUILDER_ASSETS=$(restartsim assets --print)")
	fs.StringSliceVar(&o.With, "with", nil, "optional binaries to build as well, from source, as the envtest archives hold neither: "+envtestassets.KubeControllerManager+" (for restartsim cluster up), "+envtestassets.KubeScheduler+" (for scenarios with cluster.scheduler)")
	fs.BoolVar(&o.Source, "source", false, "when nothing is found, build from source without trying the envtest release index")
	fs.StringVar(&o.Index, "index", "", "envtest release index URL, a mirror of setup-envtest's (default: $"+envtestassets.IndexEnvVar+", else setup-envtest's)")
}

// Validate checks the flags.
func (o *assetsOptions) Validate() error {
	for _, w := range o.With {
		if !slices.Contains(envtestassets.Optional, w) {
			return fmt.Errorf("--with %q: the optional binaries are %s", w, strings.Join(envtestassets.Optional, ", "))
		}
	}
	if o.Index != "" {
		if u, err := url.Parse(o.Index); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--index %q: want an http or https URL of an envtest release index", o.Index)
		}
	}
	return nil
}

func (o *assetsOptions) run(cmd *cobra.Command, stdout, stderr io.Writer) error {
	names := strings.Join(append([]string{"kube-apiserver", "etcd"}, o.With...), ", ")
	if o.Dir == "" {
		// Binaries found elsewhere are left alone (setup-envtest's are not built from our modules,
		// and need no stamp); the user cache is ours, so it is checked and completed.
		if f, err := envtestassets.Lookup(o.With...); err == nil && f.Source != "user cache" {
			return o.report(stdout, f.Dir, fmt.Sprintf("%s found in %s (%s)", names, f.Dir, f.Source))
		}
		// A $KUBEBUILDER_ASSETS that lacks them is where the user wants them built.
		o.Dir = os.Getenv(envtestassets.EnvVar)
	}
	in, err := envtestassets.Install(cmd.Context(), envtestassets.InstallOptions{Source: o.Source,
		Fetch: envtestassets.FetchOptions{IndexURL: o.Index},
		Build: envtestassets.BuildOptions{Dir: o.Dir, With: o.With, Progress: stderr}})
	if errors.Is(err, envtestassets.ErrNoGo) {
		return badInput(err)
	}
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	return o.report(stdout, in.Dir, fmt.Sprintf("%s v%s ready in %s (%s)", names, in.Version, in.Dir, in.How))
}

// report prints the directory alone with --print, else the sentence.
func (o *assetsOptions) report(stdout io.Writer, dir, sentence string) error {
	if o.Print {
		_, err := fmt.Fprintln(stdout, dir)
		return err
	}
	_, err := fmt.Fprintln(stdout, sentence)
	return err
}
