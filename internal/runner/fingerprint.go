package runner

import (
	"bufio"
	"os"
	"runtime"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
)

// cpuModel reads the CPU model name from /proc/cpuinfo ("unknown" when the
// file is missing, as on macOS hosts; the engine's view is in the kernel and
// Docker fields).
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// hostFingerprint fills the parts of a fingerprint the host knows; the
// engine's parts (Docker version, API, kernel, OS, cores) are added by the
// caller from the daemon's info.
func hostFingerprint() record.Fingerprint {
	return record.Fingerprint{
		CPU:       cpuModel(),
		Cores:     runtime.NumCPU(),
		GoVersion: runtime.Version(),
	}
}
