// Command gencomments writes comments_gen.go: the scenario package's doc comments, read from the
// source, for the schema an installed binary prints. Run by go generate in package schema.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/restartsim/restartsim/sim/scenario/schema"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gencomments:", err)
		os.Exit(1)
	}
}

func run() error {
	here, err := os.Getwd() // the schema package's directory
	if err != nil {
		return err
	}
	if err := os.Chdir(filepath.Join(here, "..", "..", "..")); err != nil {
		return err
	}
	m, err := schema.ReadComments()
	if err != nil {
		return err
	}
	src, err := schema.CommentsSource(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(here, "comments_gen.go"), src, 0o644)
}
