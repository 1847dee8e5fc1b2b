package scenario

import (
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Placeholder starts every value a generated scenario (restartsim init) could not derive. A file
// that still holds one is refused at that value, so it is never run with a guess in it.
const Placeholder = "TODO(restartsim):"

// placeholder reports n when it is a string that is still a placeholder; it is checked before
// the value's type, so a placeholder where a number belongs says what it is.
func (d *decoder) placeholder(n *yaml.Node, path string) bool {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || !strings.HasPrefix(strings.TrimSpace(n.Value), Placeholder) {
		return false
	}
	d.failf(n, path, "placeholder left to fill in: %s", strings.TrimSpace(n.Value))
	return true
}
