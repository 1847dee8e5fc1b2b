package app

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestInterruptExits130: a command that fails because SIGINT cancelled its context exits 130, and the
// context is cancelled promptly.
func TestInterruptExits130(t *testing.T) {
	running := make(chan struct{})
	prev := subcommands
	t.Cleanup(func() { subcommands = prev })
	subcommands = append(subcommands, func() *cobra.Command {
		return &cobra.Command{Use: "wait-for-interrupt", RunE: func(cmd *cobra.Command, _ []string) error {
			close(running)
			select {
			case <-cmd.Context().Done():
				return cmd.Context().Err()
			case <-time.After(10 * time.Second):
				return errors.New("not interrupted within 10s")
			}
		}}
	})
	go func() {
		<-running
		_ = syscall.Kill(os.Getpid(), syscall.SIGINT)
	}()
	if code := Main([]string{"wait-for-interrupt"}); code != ExitInterrupted {
		t.Fatalf("exit code %d, want %d", code, ExitInterrupted)
	}
}
