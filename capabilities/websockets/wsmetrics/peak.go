package wsmetrics

import (
	"cmp"

	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/report/shutdown"
)

// wsDirectInstance names the one instance of a direct topology in notes.
const wsDirectInstance = "the target"

// wsPeakAt says where a handshake peak was: its bucket (from the base)
// and the instance that answered.
type wsPeakAt struct {
	bucket   int64
	instance string
}

// PeakBase is the origin of the handshake buckets: T0 when an action
// fired (the storm follows it; the first connections before it are not
// counted), else the load start, else the first attempt's start.
func PeakBase(meta record.Meta, ws *Lines) int64 {
	if w, ok := shutdown.DeliveryWindow(meta); ok {
		return w.T0
	}
	if meta.LoadStartNs > 0 {
		return meta.LoadStartNs
	}
	var first int64
	for _, a := range ws.Attempts {
		if first == 0 || a.Start < first {
			first = a.Start
		}
	}
	return first
}

// wsAnswered reports whether an instance answered the handshake itself:
// it opened (101) or the target refused it with its refusal header. A
// proxy's own answer, a refused connection or a timeout reached no
// instance that can be named.
func wsAnswered(a *record.WSAttempt) bool {
	return a.Status == 101 || a.Refusal != ""
}

// wsPeakHandshakes returns the most handshakes one instance answered in
// one 100 ms bucket (by the handshake's start, from base on), and where.
// Behind a proxy the instance is the handshake's upstream (an answer
// without one is not counted); on a direct topology every answer is the
// target's.
func wsPeakHandshakes(attempts []record.WSAttempt, base int64, proxied bool) (int, wsPeakAt) {
	counts := map[wsPeakAt]int{}
	for i := range attempts {
		a := &attempts[i]
		if a.Start < base || !wsAnswered(a) {
			continue
		}
		inst := wsDirectInstance
		if proxied {
			if a.Upstream == "" {
				continue
			}
			inst = a.Upstream
		}
		counts[wsPeakAt{bucket: (a.Start - base) / BucketNs, instance: inst}]++
	}
	var peak int
	var at wsPeakAt
	for k, n := range counts {
		if n > peak || n == peak && wsPeakBefore(k, at) {
			peak, at = n, k
		}
	}
	return peak, at
}

// wsPeakBefore orders peaks of equal height: the earlier bucket, then the
// instance name.
func wsPeakBefore(a, b wsPeakAt) bool {
	if c := cmp.Compare(a.bucket, b.bucket); c != 0 {
		return c < 0
	}
	return a.instance < b.instance
}
