// Package scenario is the scenario file format: apiVersion restartsim/v1, kind Scenario.
//
// Types live in types.go, defaults in defaults.go and validation in validate.go. Parse decodes
// strictly (unknown fields, wrong types and duplicate keys are errors), applies defaults and
// validates the whole file before returning; every error names file:line:column and the field
// path, so nothing starts on a file that is not entirely valid.
package scenario
