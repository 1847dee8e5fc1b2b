// Package archtest holds the module's dependency rules and checks them against the import graph
// `go list` reports. The rules keep the layering one way: cmd → sim → controller, fakeaws, reports,
// results. A layer below never reaches one above, even through a helper, so a controller can be
// measured without the harness, and fakeaws stays a stand-in for AWS that knows nothing of the
// controller it serves.
package archtest
