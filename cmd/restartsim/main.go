// Command restartsim measures how long a Kubernetes controller is blind after a restart.
package main

import (
	"os"

	"github.com/restartsim/restartsim/cmd/restartsim/app"
)

func main() { os.Exit(app.Main(os.Args[1:])) }
