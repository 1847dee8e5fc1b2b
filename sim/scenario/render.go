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
	t, err := template.New(name).Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b boundedBuilder
	if err := t.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}

// boundedBuilder is a strings.Builder that refuses to grow past objects.MaxValueBytes.
type boundedBuilder struct{ strings.Builder }

func (b *boundedBuilder) Write(p []byte) (int, error) {
	if b.Len()+len(p) > objects.MaxValueBytes {
		return 0, fmt.Errorf("the rendered value is longer than %d bytes, the limit", objects.MaxValueBytes)
	}
	return b.Builder.Write(p)
}
