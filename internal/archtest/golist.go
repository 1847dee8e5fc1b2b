package archtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// List runs `go list -json ./...` in dir (any directory of the module) and returns the module's
// path and packages. Packages excluded by build constraints on this platform are not listed.
func List(ctx context.Context, dir string) (string, []Package, error) {
	module, err := goCmd(ctx, dir, "list", "-m")
	if err != nil {
		return "", nil, err
	}
	module = strings.TrimSpace(module)
	out, err := goCmd(ctx, dir, "list", "-json", module+"/...")
	if err != nil {
		return "", nil, err
	}
	pkgs, err := decode(strings.NewReader(out))
	return module, pkgs, err
}

// decode reads the stream of JSON objects `go list -json` writes.
func decode(r io.Reader) ([]Package, error) {
	var pkgs []Package
	dec := json.NewDecoder(r)
	for {
		var p Package
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decoding go list -json: %w", err)
		}
		pkgs = append(pkgs, p)
	}
}

func goCmd(ctx context.Context, dir string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}
