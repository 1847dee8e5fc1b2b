package app

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/restartsim/restartsim/internal/envtestassets"
)

// version is set by the Makefile with -ldflags -X; otherwise the module's build info is used.
var version = ""

func init() { subcommands = append(subcommands, newVersionCommand) }

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the restartsim version and the envtest asset version it expects",
		Example: "  restartsim version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			printVersion(cmd.OutOrStdout())
			return nil
		},
	}
}

// Version returns the module version of this build.
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}

func printVersion(w io.Writer) {
	fmt.Fprintf(w, "restartsim %s\n", Version())
	where := "not found; `restartsim assets` builds them"
	if f, err := envtestassets.Lookup(); err == nil {
		where = f.Dir + " (" + f.Source + ")"
	}
	fmt.Fprintf(w, "envtest assets: kube-apiserver v%s, etcd v%s: %s\n", envtestassets.Version, envtestassets.EtcdVersion, where)
	fmt.Fprintf(w, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
