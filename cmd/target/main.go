// Command target is shutdownlab's Go target app: the target protocol over
// HTTP, shutting down in the mode MODE declares. See package targetapp for
// the endpoints, the environment and the lifecycle log on stdout.
package main

import (
	"os"

	"github.com/shutdownlab/shutdownlab/targetapp"
)

func main() {
	os.Exit(targetapp.Main(os.Getenv, os.Stdout, os.Stderr))
}
