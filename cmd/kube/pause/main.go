// Command pause is the sandbox ("pause") container of shutdownlab's
// Kubernetes kit: it holds a pod's namespaces, reaps the zombies it
// inherits as PID 1, and exits 0 on SIGTERM or SIGINT. No image can be
// pulled on this project's machines, so scripts/kube.sh builds it
// statically into a FROM-scratch image and imports it into the kit's own
// containerd as its sandbox_image.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
