package scenario

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

var typeOfStep = reflect.TypeOf(Step{})

// Load reads, decodes, defaults and validates a scenario file.
func Load(path string) (*Scenario, error) {
	return LoadContext(context.Background(), path)
}

// LoadContext is Load reading the file with ReadFile: at most 1 MiB, a regular file or a pipe
// (standard input for "-"), and an error wrapping ctx.Err() should ctx end first.
func LoadContext(ctx context.Context, path string) (*Scenario, error) {
	s, err := LoadPartial(ctx, path)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// LoadPartial is LoadContext returning, beside the error, the scenario as decoded and defaulted
// when only its validation failed, so that checks of what it names (executables, files) can report
// in the same pass. A scenario returned with an error must not be run.
func LoadPartial(ctx context.Context, path string) (*Scenario, error) {
	data, err := ReadFile(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, ErrorList{{File: DisplayName(path), Msg: strings.TrimPrefix(err.Error(), path+" ")}}
	}
	return parse(DisplayName(path), data)
}

// Parse decodes a scenario strictly, applies defaults and validates it. The error, if any, is an
// ErrorList whose entries name file:line:column and the field path.
func Parse(file string, data []byte) (*Scenario, error) {
	s, err := parse(file, data)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// ParsePartial is Parse returning, like LoadPartial, the scenario also when only its validation failed.
func ParsePartial(file string, data []byte) (*Scenario, error) { return parse(file, data) }

// Binaries are the builds' binaries given outside the scenario (gate's --baseline-binary and
// --candidate-binary): they take the place of ab.baseline.binary and ab.candidate.binary.
type Binaries struct{ Baseline, Candidate string }

// LoadWithBinaries is LoadContext with the A/B builds' binaries set from b (where given) before
// the scenario's ${VAR} references are resolved: with both builds' binaries known, the A/B
// strategy's command need not resolve the ${...BINARY} they replace.
func LoadWithBinaries(ctx context.Context, path string, b Binaries) (*Scenario, error) {
	data, err := ReadFile(ctx, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, ErrorList{{File: DisplayName(path), Msg: strings.TrimPrefix(err.Error(), path+" ")}}
	}
	return ParseWithBinaries(DisplayName(path), data, b)
}

// ParseWithBinaries is Parse with the A/B builds' binaries set from b, as LoadWithBinaries.
func ParseWithBinaries(file string, data []byte, b Binaries) (*Scenario, error) {
	s, err := parseWith(file, data, b)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// parse is Parse returning the decoded scenario also when its validation failed.
func parse(file string, data []byte) (s *Scenario, err error) {
	return parseWith(file, data, Binaries{})
}

// parseWith is parse with the A/B builds' binaries set from b.
func parseWith(file string, data []byte, b Binaries) (s *Scenario, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, ErrorList{{File: file, Line: 1, Column: 1, Msg: fmt.Sprintf("cannot parse: %v", r)}}
		}
	}()
	if len(data) > maxFileBytes {
		return nil, ErrorList{{File: file, Line: 1, Column: 1, Msg: fmt.Sprintf("file is %d bytes, the limit is %d", len(data), maxFileBytes)}}
	}
	d := &decoder{file: file, pos: map[string]position{}}
	s = &Scenario{}
	d.decodeDocument(data, s)
	if len(d.errs) > 0 {
		return nil, d.errs
	}
	given := func(path string) bool { _, ok := d.pos[path]; return ok }
	if s.AB != nil {
		s.AB.Baseline.Binary = cmp.Or(b.Baseline, s.AB.Baseline.Binary)
		s.AB.Candidate.Binary = cmp.Or(b.Candidate, s.AB.Candidate.Binary)
	}
	errs := expandEnv(s)
	SetDefaults(s, given)
	verrs, compiled := validate(s, given)
	errs = append(errs, notAt(verrs, errs)...)
	s.src = &source{file: file, pos: d.pos, data: data}
	if len(errs) == 0 {
		s.compiled = compiled
	}
	if len(errs) == 0 {
		return s, nil
	}
	for _, e := range errs {
		s.src.place(e)
	}
	return s, errs
}

// notAt is errs without those at a path of first's: a value left unexpanded (${UNSET}) is
// reported once, not again for what it then fails.
func notAt(errs, first ErrorList) ErrorList {
	var out ErrorList
	for _, e := range errs {
		if !slices.ContainsFunc(first, func(f *FieldError) bool { return f.Path == e.Path }) {
			out = append(out, e)
		}
	}
	return out
}

// source is where a parsed scenario came from: its file, its text and the position of every field
// path the file set.
type source struct {
	file string
	pos  map[string]position
	data []byte
}

// place fills in e's file, line and column from its path.
func (src *source) place(e *FieldError) {
	e.File = src.file
	p := src.locate(e.Path)
	e.Line, e.Column = p.line, p.column
}

// locate finds the position of path or of its nearest given ancestor.
func (src *source) locate(path string) position {
	for path != "" {
		if p, ok := src.pos[path]; ok {
			return p
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	if p, ok := src.pos[""]; ok {
		return p
	}
	return position{1, 1}
}

// FieldError is a problem found after parsing (a file the scenario names is missing, say) with the
// field at path, placed at that field's file, line and column when s was parsed from a file.
func (s *Scenario) FieldError(path, format string, args ...any) *FieldError {
	e := &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
	if s.src != nil {
		s.src.place(e)
	}
	return e
}

// Source is the text s was parsed from (nil for a scenario built in code).
func (s *Scenario) Source() []byte {
	if s.src == nil {
		return nil
	}
	return s.src.data
}
