//go:build !unix

package envtestassets

import "os"

// tryLockFile does not lock where flock is missing: concurrent builds there may each build, and the
// last rename wins, which leaves a whole binary either way.
func tryLockFile(*os.File) (bool, error) { return true, nil }

func unlockFile(*os.File) error { return nil }
