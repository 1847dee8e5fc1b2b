package app

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/restartsim/restartsim/controller"
)

func init() { subcommands = append(subcommands, newCRDsCommand) }

func newCRDsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "crds",
		Short: "Print the CRDs this build uses (TargetGroupBinding, IngressClassParams), as YAML (for kubectl apply)",
		Example: `  # Install them on a cluster before a run with --kubeconfig (or pass --install-crds to simulate)
  restartsim crds | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return writeCRDs(cmd.OutOrStdout()) },
	}
}

// writeCRDs writes the built-in CRD manifests as one YAML stream.
func writeCRDs(w io.Writer) error {
	for i, m := range controller.CRDManifests() {
		if i > 0 {
			if _, err := io.WriteString(w, "---\n"); err != nil {
				return err
			}
		}
		if _, err := w.Write(m); err != nil {
			return err
		}
	}
	return nil
}
