//go:build !linux

package envtestassets

import "syscall"

// dieWithParent has no portable equivalent of Linux's parent-death signal; a cancelled context
// still stops the build.
func dieWithParent() *syscall.SysProcAttr { return nil }
