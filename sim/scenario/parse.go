package scenario

import (
	"fmt"
	"os"
	"reflect"
	"strings"
)

var typeOfStep = reflect.TypeOf(Step{})

// maxFileBytes bounds a scenario file.
const maxFileBytes = 1 << 20

// Load reads, decodes, defaults and validates a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ErrorList{{File: path, Msg: err.Error()}}
	}
	return Parse(path, data)
}

// Parse decodes a scenario strictly, applies defaults and validates it. The error, if any, is an
// ErrorList whose entries name file:line:column and the field path.
func Parse(file string, data []byte) (s *Scenario, err error) {
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
	errs := expandEnv(s)
	SetDefaults(s, given)
	if len(errs) == 0 {
		errs = Validate(s, given)
	}
	if len(errs) == 0 {
		return s, nil
	}
	for _, e := range errs {
		e.File = file
		p := d.locate(e.Path)
		e.Line, e.Column = p.line, p.column
	}
	return nil, errs
}

// locate finds the position of path or of its nearest given ancestor.
func (d *decoder) locate(path string) position {
	for path != "" {
		if p, ok := d.pos[path]; ok {
			return p
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	if p, ok := d.pos[""]; ok {
		return p
	}
	return position{1, 1}
}
