package scenario

import (
	"fmt"
	"strings"
	"text/template"

	"github.com/restartsim/restartsim/sim/objects"
)

// RenderCommand renders one of an external controller's command, env or lease templates with d.
// The result is bounded like an object template's value (objects.MaxValueBytes), so a loop such as
// {{range 10000000}}a{{end}} is refused, at its field, instead of building a huge argument.
func RenderCommand(name, text string, d TemplateData) (string, error) {
	t, err := objects.ParseBounded(template.New(name).Option("missingkey=error"), text)
	if err != nil {
		return "", err
	}
	b := boundedBuilder{limit: objects.MaxValueBytes}
	if err := objects.ExecuteBounded(t, &b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}

// boundedBuilder is a strings.Builder that refuses to grow past limit bytes.
type boundedBuilder struct {
	strings.Builder
	limit int
}

func (b *boundedBuilder) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		return 0, fmt.Errorf("the rendered value is longer than %d bytes, the limit", b.limit)
	}
	return b.Builder.Write(p)
}

// clipQuoted is s quoted, its middle cut when long, for an error message about a rendered value.
func clipQuoted(s string) string {
	const keep = 60
	if len(s) <= 2*keep {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q…(%d bytes)…%q", s[:keep], len(s), s[len(s)-keep:])
}
