package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"text/template/parse"

	"github.com/restartsim/restartsim/sim/scenario"
)

// startFields are the template fields whose values the run makes at its start.
var startFields = map[string]string{
	"CertDir":     "a directory the run creates at each start for the controller's serving certificates",
	"Kubeconfig":  "a file the run writes at its start",
	"AWSEndpoint": "fakeaws's URL", "Port": "a port", "MetricsPort": "a port", "HealthPort": "a port",
	"VpcID": "a VPC ID", "Namespace": "a namespace", "Replica": "a replica number",
}

// checkCommand checks the executable a command template names: rendered with what is known before
// the start and checked like a plain path. A path that begins with a value the run makes at its
// start (such as {{.CertDir}}) cannot hold a program the user put there, and is refused; one that
// uses such a value elsewhere is checked when the process starts.
func checkCommand(text string, known scenario.TemplateData) error {
	if !strings.Contains(text, "{{") {
		return checkExecutable(text)
	}
	used, first, ok := templateFields(text)
	if !ok {
		return nil // the scenario's validation reports the template itself
	}
	if why, ok := startFields[first]; ok && (first == "CertDir" || first == "Kubeconfig") {
		return fmt.Errorf("%q: {{.%s}} is %s, so no executable can be there", text, first, why)
	}
	for _, f := range used {
		if _, ok := startFields[f]; ok {
			return nil
		}
	}
	name, ok := renderKnown(text, known)
	if !ok {
		return nil // as above
	}
	if err := checkExecutable(name); err != nil {
		return fmt.Errorf("%q (rendered): %w", text, err)
	}
	return nil
}

// templateFields lists the data fields a template uses, and the field its text begins with ("" if
// it begins with text).
func templateFields(text string) (used []string, first string, ok bool) {
	trees, err := parse.Parse("command", text, "{{", "}}", map[string]any{})
	if err != nil {
		return nil, "", false
	}
	t := trees["command"]
	if t == nil || t.Root == nil {
		return nil, "", true
	}
	var walk func(n parse.Node)
	walk = func(n parse.Node) {
		switch n := n.(type) {
		case *parse.ListNode:
			if n != nil {
				for _, c := range n.Nodes {
					walk(c)
				}
			}
		case *parse.ActionNode:
			walk(n.Pipe)
		case *parse.PipeNode:
			if n != nil {
				for _, c := range n.Cmds {
					walk(c)
				}
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(a)
			}
		case *parse.FieldNode:
			used = append(used, n.Ident[0])
		case *parse.IfNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.RangeNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		case *parse.WithNode:
			walk(n.Pipe)
			walk(n.List)
			walk(n.ElseList)
		}
	}
	walk(t.Root)
	if len(t.Root.Nodes) > 0 {
		if a, ok := t.Root.Nodes[0].(*parse.ActionNode); ok && len(a.Pipe.Cmds) == 1 && len(a.Pipe.Cmds[0].Args) == 1 {
			if f, ok := a.Pipe.Cmds[0].Args[0].(*parse.FieldNode); ok {
				first = f.Ident[0]
			}
		}
	}
	return used, first, true
}

// renderKnown renders a command template with the values known before the start; false when it does not
// render, which the scenario's validation reports at the template's own field.
func renderKnown(text string, known scenario.TemplateData) (string, bool) {
	name, err := scenario.RenderCommand("command", text, known)
	return name, err == nil
}

// executableMagic are the starts of the files a run can execute: ELF and Mach-O binaries, and
// scripts with an interpreter line.
var executableMagic = [][]byte{
	[]byte("\x7fELF"), []byte("#!"),
	{0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf}, {0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe},
}

// checkExecutable checks that name (a path, or a command looked up on PATH) is a regular file this
// user may execute, and an executable or a script by its first bytes: what exec would refuse, or
// the kernel fail with "exec format error", is found before anything starts. Whether the program
// then runs is its own business (a --version probe is no test: a wrapper script may take long).
func checkExecutable(name string) error {
	path := name
	if !strings.ContainsRune(name, filepath.Separator) {
		p, err := exec.LookPath(name)
		if err != nil {
			return fmt.Errorf("%q: no such executable on PATH", name)
		}
		path = p
	}
	if err := checkRegularFile(path); err != nil {
		return err
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm()&0o111 == 0 {
		return fmt.Errorf("%s is not executable (mode %v; chmod +x it)", path, st.Mode().Perm())
	}
	if err := syscall.Access(path, 1); err != nil { // X_OK
		return fmt.Errorf("%s is not executable by this user: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, 4)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return err
	}
	for _, m := range executableMagic {
		if bytes.HasPrefix(head[:n], m) {
			return nil
		}
	}
	return fmt.Errorf("%s is neither an executable (ELF, Mach-O) nor a script starting with #!", path) //nolint:staticcheck // ST1005: "#!" is the shebang, not punctuation
}

// checkRegularFile checks that path exists and is a file (symbolic links followed).
func checkRegularFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}
