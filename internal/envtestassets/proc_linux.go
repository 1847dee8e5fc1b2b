package envtestassets

import "syscall"

// dieWithParent makes go build stop when restartsim dies without cancelling it (SIGKILL, SIGPIPE
// on a closed stderr), instead of compiling on for minutes as an orphan.
func dieWithParent() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
