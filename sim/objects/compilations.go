package objects

import "sync/atomic"

// compilations counts the CEL expressions, CEL environments and templates compiled in this process.
var compilations atomic.Int64

// Compilations is how many CEL expressions, CEL environments and templates this process has
// compiled. A run compiles its scenario's before the measured phase and never during it, where
// the harness's CPU would count against the controller under test.
func Compilations() int64 { return compilations.Load() }
