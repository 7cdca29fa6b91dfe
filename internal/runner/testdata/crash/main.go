// Command crash is a broken target image for the runner's tests: it prints
// a few start-up lines and exits with code 3 before it listens anywhere,
// as an image with a bad configuration does.
package main

import (
	"fmt"
	"os"
)

func main() {
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(os.Stderr, "crash: start-up step %d\n", i)
	}
	fmt.Fprintln(os.Stderr, "crash: fatal: no configuration at /etc/app.conf")
	os.Exit(3)
}
