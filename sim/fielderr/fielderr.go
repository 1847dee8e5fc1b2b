// Package fielderr holds the error type of bad user input placed by field path: a scenario file's
// problems (with file, line and column) and those the object compiler finds in the scenario's object
// groups (path only, placed by the scenario parser afterwards). Both report through one type so that a
// problem reads the same wherever it was found.
package fielderr

import (
	"fmt"
	"strings"
)

// Error is one problem, placed by its field path (e.g. fleet.objects[1].template.spec.name) and, once
// known, by file, line and column.
type Error struct {
	// File is the file the problem is in; empty while only the path is known.
	File   string
	Line   int
	Column int
	// Path is the field path; empty for the document itself.
	Path string
	// Msg says what is wrong.
	Msg string
}

// Error reads file:line:column: path: message, leaving out what is not known (a problem of the
// object groups, or of a scenario built in code, has no file).
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// List is every problem found; the input is only used when it is empty.
type List []*Error

// MaxListed is the most problems Error lists: a file that is wrong throughout (a list of the wrong
// type, say) would otherwise print pages.
const MaxListed = 50

func (l List) Error() string {
	msgs := make([]string, 0, min(len(l), MaxListed)+1)
	for _, e := range l[:min(len(l), MaxListed)] {
		msgs = append(msgs, e.Error())
	}
	if len(l) > MaxListed {
		msgs = append(msgs, fmt.Sprintf("and %d more", len(l)-MaxListed))
	}
	if len(l) == 1 {
		return msgs[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(l), strings.Join(msgs, "\n  "))
}

// Unwrap exposes the single errors to errors.Is/As.
func (l List) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// Addf appends a problem at path.
func (l *List) Addf(path, format string, args ...any) {
	*l = append(*l, &Error{Path: path, Msg: fmt.Sprintf(format, args...)})
}
