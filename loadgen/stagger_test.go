package loadgen

import (
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// With Stagger, closed-loop client w sends its first request no earlier than
// w*Stagger/Clients after load start (a timer never fires early), so the
// clients' requests are spread over the span instead of in lockstep.
// Without it every client starts at once. Bounds only, never a timing.
func TestStaggeredClientStarts(t *testing.T) {
	addr := okServer(t)
	const clients = 4
	for _, stagger := range []time.Duration{0, 400 * time.Millisecond} {
		sum, reqs := run(t, Config{Target: addr, Clients: clients, Duration: 600 * time.Millisecond, Stagger: stagger,
			MaxRequests: 100000})
		first := map[int]int64{}
		for _, r := range reqs {
			if r.Class == record.ClassNotSent {
				continue
			}
			if f, ok := first[r.Worker]; !ok || r.Start < f {
				first[r.Worker] = r.Start
			}
		}
		for w := range clients {
			f, ok := first[w]
			if !ok {
				t.Fatalf("stagger %v: client %d sent nothing", stagger, w)
			}
			lo := sum.LoadStart + int64(stagger)*int64(w)/clients
			if f < lo {
				t.Errorf("stagger %v: client %d first request at +%v, before its offset +%v",
					stagger, w, time.Duration(f-sum.LoadStart), time.Duration(lo-sum.LoadStart))
			}
		}
	}
}

// A stagger longer than the load is a configuration error, not a silent
// run in which some clients never start.
func TestStaggerValidated(t *testing.T) {
	cfg := Config{Target: "127.0.0.1:1", Duration: time.Second, Stagger: 2 * time.Second}.WithDefaults()
	if err := cfg.Validate(); err == nil {
		t.Fatal("Stagger > Duration accepted")
	}
}
