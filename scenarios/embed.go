// Package scenarios holds the shipped scenario files. The quickstart is built into restartsim, so
// `restartsim simulate` without -f runs it from any directory, a checkout or not.
package scenarios

import _ "embed"

// QuickstartName names the built-in quickstart in messages, results.json and the output folder.
const QuickstartName = "quickstart.yaml (built in)"

// Quickstart is scenarios/quickstart.yaml.
//
//go:embed quickstart.yaml
var Quickstart []byte
