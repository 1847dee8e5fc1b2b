package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/sim/objects"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/sim/scaffold"
)

func init() { subcommands = append(subcommands, newInitCommand) }

// initOptions are the flags of `restartsim init`.
type initOptions struct {
	CRDs    []string
	Kinds   []string
	Binary  string
	Out     string
	Count   int
	Force   bool
	binArgs []string
	// fsys is where -o is written (the disk; a full one in tests).
	fsys outfile.FS
}

func newInitCommand() *cobra.Command {
	o := &initOptions{}
	cmd := &cobra.Command{
		Use:   "init --crds DIR|FILE... [--kind K...] [--binary PATH [-- ARGS...]] [-o FILE]",
		Short: "Write a first, commented scenario for your controller from its CRDs and its --help",
		Long: `Write a scenario for a controller of your own: one object group per kind of the CRDs (or per --kind),
with a template from the kind's schema, a ready condition from its status conditions, the AWS mapping
of known kinds, an external strategy with the flags the binary's --help offers, and a crash restart
with one change per group. What cannot be derived is a TODO(restartsim) placeholder, which restartsim
refuses until it is filled in. Arguments after -- come before the flags (a subcommand).`,
		Example: `  # The ACK ELBv2 controller's TargetGroups
  restartsim init --crds ../shared/ack/crds --kind TargetGroup --binary ../shared/ack/ack-elbv2-controller -o ack.yaml

  # The reference controller, run as an external binary
  restartsim init --crds controller/config/crd --kind TargetGroupBinding --binary bin/restartsim -o ref.yaml -- controller`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.binArgs = args
			if err := o.Validate(); err != nil {
				return badInput(err)
			}
			return o.run(cmd)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the flags.
func (o *initOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringSliceVar(&o.CRDs, "crds", nil, "CRD files or directories of the kinds the controller owns (repeatable)")
	fs.StringSliceVar(&o.Kinds, "kind", nil, "kinds to make object groups of (repeatable; default every kind of the CRDs)")
	fs.StringVar(&o.Binary, "binary", "", "the controller binary; its --help gives the strategy's flags (run with a timeout, no cluster or AWS)")
	fs.StringVarP(&o.Out, "out", "o", "", "write the scenario here (default: stdout)")
	fs.IntVar(&o.Count, "count", scaffold.DefaultCount, "objects per group")
	fs.BoolVar(&o.Force, "force", false, "overwrite an existing -o file")
}

// Validate checks the flags.
func (o *initOptions) Validate() error {
	if len(o.CRDs) == 0 {
		return errors.New("--crds is required: the CRD files or directories of the kinds your controller owns")
	}
	if o.Count < 1 || o.Count > objects.MaxCount {
		return fmt.Errorf("--count %d: must be 1 to %d, a group's limit in a scenario", o.Count, objects.MaxCount)
	}
	if len(o.binArgs) > 0 && o.Binary == "" {
		return fmt.Errorf("arguments %q need --binary", o.binArgs)
	}
	if o.Out != "" && !o.Force {
		if _, err := os.Lstat(o.Out); err == nil {
			return fmt.Errorf("%s exists; pass --force to overwrite it", o.Out)
		}
	}
	return nil
}

// absPaths resolves relative --crds and --binary paths against the working directory: the binary's --help
// runs in a scratch directory, and the scenario may be simulated from elsewhere. A bare binary name is
// looked up in PATH unless the working directory holds it.
func (o *initOptions) absPaths() error {
	for i, p := range o.CRDs {
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		o.CRDs[i] = abs
	}
	if o.Binary == "" || filepath.IsAbs(o.Binary) {
		return nil
	}
	if !strings.ContainsRune(o.Binary, filepath.Separator) {
		if _, err := exec.LookPath(o.Binary); err == nil {
			return nil
		}
	}
	abs, err := filepath.Abs(o.Binary)
	o.Binary = abs
	return err
}

func (o *initOptions) run(cmd *cobra.Command) error {
	if err := o.absPaths(); err != nil {
		return badInput(err)
	}
	res, err := scaffold.Generate(cmd.Context(), scaffold.Options{CRDs: o.CRDs, Kinds: o.Kinds, Binary: o.Binary, BinaryArgs: o.binArgs, Count: o.Count})
	if err != nil {
		return badInput(err)
	}
	file := o.Out
	if file == "" {
		if _, err := cmd.OutOrStdout().Write(res.YAML); err != nil {
			return err
		}
		file = "FILE"
	} else if err := o.write(res.YAML); err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	printInitNext(cmd.ErrOrStderr(), res, file, o.Binary)
	return nil
}

// write writes -o whole or not at all: an existing file (--force) is replaced only once the new one is
// complete, so a full disk leaves the old file as it was and no partial new one.
func (o *initOptions) write(data []byte) error {
	fsys := o.fsys
	if fsys == nil {
		fsys = outfile.Disk{}
	}
	return outfile.WriteBytes(fsys, o.Out, data)
}

// printInitNext says how many placeholders are left and what to run next.
func printInitNext(w io.Writer, res *scaffold.Result, file, binary string) {
	switch n := len(res.Placeholders); n {
	case 0:
		fmt.Fprintf(w, "wrote %s: no placeholders left; check its comments.\n", file)
	default:
		fmt.Fprintf(w, "wrote %s: %d placeholder(s) left to fill in (TODO(restartsim)):\n", file, n)
		for _, p := range res.Placeholders {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
	env := ""
	if res.BinaryEnv != "" {
		env = res.BinaryEnv + "=" + binary + " "
	}
	fmt.Fprintf(w, "next: %srestartsim validate -f %s, then %srestartsim simulate -f %s\n", env, file, env, file)
}
