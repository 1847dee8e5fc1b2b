package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes shared by every subcommand.
const (
	ExitOK       = 0
	ExitFailure  = 1 // also: gate found a regression
	ExitBadInput = 2
	// ExitInconclusive: the gate could neither show a regression nor rule one out (EX_TEMPFAIL of
	// sysexits.h: run it again, ideally on a quieter machine).
	ExitInconclusive = 75
	// ExitInterrupted: SIGINT or SIGTERM stopped the command before it finished (128 + SIGINT, as a
	// shell reports a process killed by ^C).
	ExitInterrupted = 130
)

// ExitError carries a specific exit code out of a subcommand.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// badInput marks err as bad input or environment (exit code 2).
func badInput(err error) error { return &ExitError{Code: ExitBadInput, Err: err} }

// subcommands is filled by each subcommand file's init, so adding a verb touches one file only.
var subcommands []func() *cobra.Command

// NewRootCommand builds the restartsim command tree.
func NewRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "restartsim",
		Short:         "Measure how long a Kubernetes controller is blind after a restart, under real AWS API throttles",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	addLogFormatFlag(root.PersistentFlags())
	for _, sub := range subcommands {
		root.AddCommand(sub())
	}
	return root
}

// Main runs the CLI and returns the process exit code. SIGINT and SIGTERM cancel the context so
// every subcommand can shut down cleanly; a command that fails after one exits ExitInterrupted. A
// second signal kills the process at once.
func Main(args []string) int { return mainTo(args, os.Stderr) }

// mainTo is Main writing its errors to stderr. Every command's failure is one line, "error: "
// and the error, printed here only (cobra's own printing is silenced), so no command has a
// style of its own.
func mainTo(args []string, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	context.AfterFunc(ctx, stop) // the first signal cancels; the default action handles the next
	root := NewRootCommand()
	root.SetArgs(args)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "error:", err)
	if ctx.Err() != nil {
		return ExitInterrupted
	}
	var exitErr *ExitError
	if errors.As(err, &exitErr) {
		return exitErr.Code
	}
	return ExitBadInput
}
