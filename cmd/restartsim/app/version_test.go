package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/internal/envtestassets"
)

func TestVersionCommand(t *testing.T) {
	root := NewRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"restartsim ", "v" + envtestassets.Version} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("version output %q lacks %q", out.String(), want)
		}
	}
}

func TestUnknownCommandIsBadInput(t *testing.T) {
	if code := Main([]string{"no-such-verb"}); code != ExitBadInput {
		t.Fatalf("exit code = %d, want %d", code, ExitBadInput)
	}
}
