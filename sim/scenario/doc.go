// Package scenario is the scenario file format: apiVersion restartsim/v1, kind Scenario.
//
// The file's types live in types.go (the top level, cluster, AWS and fleet), controller.go (the
// controller under test) and timeline.go (the steps); defaults in defaults.go; validation in
// validate.go, validate_controller.go and validate_timeline.go. Parse decodes
// strictly (unknown fields, wrong types and duplicate keys are errors), applies defaults and
// validates the whole file before returning; every error names file:line:column and the field
// path, so nothing starts on a file that is not entirely valid.
//
// A reference strategy's knob fields (Strategy, between its marker comments) and their checks
// (knobs_gen.go) are generated from controller.Knobs, which declares each knob once.
package scenario

//go:generate go run ./internal/genknobs
