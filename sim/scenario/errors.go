package scenario

import (
	"fmt"
	"strings"
)

// FieldError is one problem in a scenario file, placed by file, line, column and field path.
type FieldError struct {
	File   string
	Line   int
	Column int
	// Path is the field path, e.g. timeline[2].mode; empty for the document itself.
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found in a file; a file is only used when the list is empty.
type ErrorList []*FieldError

func (l ErrorList) Error() string {
	msgs := make([]string, 0, min(len(l), maxListed)+1)
	for _, e := range l[:min(len(l), maxListed)] {
		msgs = append(msgs, e.Error())
	}
	if len(l) > maxListed {
		msgs = append(msgs, fmt.Sprintf("and %d more", len(l)-maxListed))
	}
	if len(l) == 1 {
		return msgs[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(l), strings.Join(msgs, "\n  "))
}

// maxListed is the most problems Error lists: a file that is wrong throughout (a list of the
// wrong type, say) would otherwise print pages.
const maxListed = 50

// Unwrap exposes the single errors to errors.Is/As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}
