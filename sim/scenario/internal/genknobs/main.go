// Command genknobs writes the Strategy fields that controller.Knobs declares into the scenario
// package's controller.go, and their checks into knobs_gen.go. Run by go generate in package scenario.
package main

import (
	"fmt"
	"os"

	"github.com/restartsim/restartsim/sim/scenario/internal/knobfields"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "genknobs:", err)
		os.Exit(1)
	}
}

func run() error {
	src, err := os.ReadFile(knobfields.File) // go generate runs in the scenario package's directory
	if err != nil {
		return err
	}
	out, err := knobfields.Rewrite(src)
	if err != nil {
		return err
	}
	if err := os.WriteFile(knobfields.File, out, 0o644); err != nil {
		return err
	}
	checks, err := knobfields.Checks()
	if err != nil {
		return err
	}
	return os.WriteFile(knobfields.ChecksFile, checks, 0o644)
}
