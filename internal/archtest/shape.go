package archtest

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
)

// Shape limits: a file a reader can hold in mind, a function that fits a screen.
const (
	MaxFileLines = 400
	MaxFuncLines = 80
)

// Shape lists the packages' non-test, hand-written Go files longer than MaxFileLines and the
// functions longer than MaxFuncLines, as "path:line: what".
func Shape(pkgs []Package) ([]string, error) {
	var out []string
	for _, p := range pkgs {
		for _, name := range p.GoFiles {
			path := filepath.Join(p.Dir, name)
			src, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			out = append(out, fileShape(path, src)...)
		}
	}
	return out, nil
}

func fileShape(path string, src []byte) []string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution|parser.ParseComments)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", path, err)}
	}
	// Generated files are exempt: only by the marker where Go's convention puts it, before the package
	// clause, so a file that merely mentions the marker (this one) is measured.
	if ast.IsGenerated(f) {
		return nil
	}
	var out []string
	if n := bytes.Count(src, []byte("\n")); n > MaxFileLines {
		out = append(out, fmt.Sprintf("%s: %d lines, at most %d", path, n, MaxFileLines))
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
		if n := end - start + 1; n > MaxFuncLines {
			out = append(out, fmt.Sprintf("%s:%d: func %s is %d lines, at most %d", path, start, fd.Name.Name, n, MaxFuncLines))
		}
	}
	return out
}
