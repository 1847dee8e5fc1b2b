package objects

import (
	"fmt"
	"strings"
)

// FieldError is one problem in a group, a patch or a CRD, placed by its field path, e.g.
// fleet.objects[1].template.spec.name. The scenario parser maps the path to a file position.
type FieldError struct {
	// Path is the field path, built from the prefix the caller passed.
	Path string
	// Msg says what is wrong.
	Msg string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// ErrorList is every problem found; the input is only used when it is empty.
type ErrorList []*FieldError

func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	if len(l) == 1 {
		return msgs[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(l), strings.Join(msgs, "\n  "))
}

// Unwrap exposes the single errors to errors.Is/As.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// addf appends a problem at path.
func (l *ErrorList) addf(path, format string, args ...any) {
	*l = append(*l, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// fieldPath joins a field name to a path: .name for plain names, [name] for keys that are not (an annotation
// key holds dots and slashes), as the scenario parser writes map keys.
func fieldPath(path, name string) string {
	if plainName(name) {
		if path == "" {
			return name
		}
		return path + "." + name
	}
	return path + "[" + name + "]"
}

// indexPath appends a list index to a path.
func indexPath(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r == '-' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}
