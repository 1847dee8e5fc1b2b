// Package app wires the restartsim subcommands. Each subcommand lives in its own file with an
// options struct, AddFlags, Validate and run; the work itself is done in sim, fakeaws, controller
// and reports.
package app
