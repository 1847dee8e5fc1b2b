package scenario

import "github.com/restartsim/restartsim/sim/fielderr"

// FieldError is one problem in a scenario file, placed by file, line, column and field path.
type FieldError = fielderr.Error

// ErrorList is every problem found in a file; a file is only used when the list is empty.
type ErrorList = fielderr.List
