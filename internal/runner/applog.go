package runner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"

	"github.com/shutdownlab/shutdownlab/record"
)

// parseLifecycle picks the target app's lifecycle events out of its stdout:
// one JSON object per line with "ts_ns" and "event". Other lines (a user's
// image may log anything) are skipped here and stay in the raw app log.
func parseLifecycle(stdout []byte) []record.Event {
	var events []record.Event
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev record.Event
		if err := json.Unmarshal(line, &ev); err != nil || ev.Event == "" || ev.TimeNs == 0 {
			continue
		}
		events = append(events, ev)
	}
	return events
}

// splitLines turns a file read back from a container into its non-empty
// lines (ledger ids, job steps).
func splitLines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
