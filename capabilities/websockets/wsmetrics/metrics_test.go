package wsmetrics

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/fixture"
	"github.com/shutdownlab/shutdownlab/record"
)

// The hand-made ws records (internal/fixture).
const wsT0 = fixture.WST0

var (
	wsAt    = fixture.WSAt
	opened  = fixture.WSOpened
	refused = fixture.WSRefused
	closed  = fixture.WSClosed
)

func fp(f float64) *float64 { return &f }

// eqF compares two nullable floats.
func eqF(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) < 1e-9
}

func show(p *float64) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func TestWSCloseCodes(t *testing.T) {
	const srv, cli, abn = record.WSClosedByServer, record.WSClosedByClient, record.WSClosedAbnormal
	tests := []struct {
		name             string
		closes           []record.WSClose
		c1001, c1006, ot int
	}{
		{"no closes", nil, 0, 0, 0},
		{"the client's own closes are not counted", []record.WSClose{closed(0, 1, 1, 5, 1000, cli), closed(1, 1, 2, 5, 1001, cli)}, 0, 0, 0},
		{"1001, 1006 and others", []record.WSClose{closed(0, 1, 1, 5, 1001, srv), closed(1, 1, 2, 6, 1006, abn),
			closed(2, 1, 3, 7, 1000, srv), closed(3, 1, 4, 8, 4000, srv), closed(4, 1, 5, 9, 1001, srv)}, 2, 1, 2},
	}
	for _, tt := range tests {
		a, b, c := wsCloseCodes(tt.closes)
		if a != tt.c1001 || b != tt.c1006 || c != tt.ot {
			t.Errorf("%s: %d/%d/%d, want %d/%d/%d", tt.name, a, b, c, tt.c1001, tt.c1006, tt.ot)
		}
	}
}

func TestWSCloseTimes(t *testing.T) {
	ws := &Lines{
		Attempts: []record.WSAttempt{opened(0, 1, 1, -900, -899, "replica-0:8080"), opened(1, 1, 2, -900, -899, "replica-1:8080"),
			opened(2, 1, 3, -900, -899, "replica-0:8080"), opened(3, 1, 4, -900, -899, "")},
		Closes: []record.WSClose{
			closed(0, 1, 1, 700, 1001, record.WSClosedByServer),
			closed(1, 1, 2, 300, 1006, record.WSClosedAbnormal),
			closed(2, 1, 3, -5, 1001, record.WSClosedByServer), // before t0
			closed(3, 1, 4, 100, 1000, record.WSClosedByClient),
		},
	}
	all := func(string) bool { return true }
	if got := CloseTimes(ws, wsT0, all); !reflect.DeepEqual(got, []float64{300, 700}) {
		t.Errorf("direct: %v, want [300 700]", got)
	}
	meta := record.Meta{Topology: record.TopologyCaddy, Replicas: []record.Replica{{Name: "replica-0"}, {Name: "replica-1"}},
		Action: &record.Action{Replica: 0, SentNs: wsT0}}
	if got := CloseTimes(ws, wsT0, ActedUpstream(meta)); !reflect.DeepEqual(got, []float64{700}) {
		t.Errorf("behind caddy, replica-0 acted on: %v, want [700]", got)
	}
}

func TestWSRestore(t *testing.T) {
	const srv, cli = record.WSClosedByServer, record.WSClosedByClient
	tests := []struct {
		name          string
		ws            Lines
		p50, p99, max *float64
		unrestored    int
	}{
		{"no closes", Lines{Attempts: []record.WSAttempt{opened(0, 1, 1, 0, 1, "")}}, nil, nil, nil, 0},
		{"the client's own close needs no restore", Lines{
			Attempts: []record.WSAttempt{opened(0, 1, 1, 0, 1, "")},
			Closes:   []record.WSClose{closed(0, 1, 1, 500, 1000, cli)}}, nil, nil, nil, 0},
		{"a close, a refusal, then the next open", Lines{
			Attempts: []record.WSAttempt{opened(0, 1, 1, -900, -899, ""), refused(0, 2, 110, 503, record.RefusalDraining, "", record.ClassHTTPError),
				opened(0, 3, 2, 300, 350, "")},
			Closes: []record.WSClose{closed(0, 1, 1, 100, 1001, srv), closed(0, 3, 2, 2000, 1000, cli)}}, fp(250), fp(250), fp(250), 0},
		{"a client that never reconnects", Lines{
			Attempts: []record.WSAttempt{opened(0, 1, 1, -900, -899, ""), refused(0, 2, 110, 0, "", "", record.ClassRefused),
				opened(1, 1, 2, -900, -899, ""), opened(1, 2, 3, 150, 160, "")},
			Closes: []record.WSClose{closed(0, 1, 1, 100, 1006, record.WSClosedAbnormal), closed(1, 1, 2, 100, 1001, srv),
				closed(1, 2, 3, 900, 1000, cli)}}, fp(60), fp(60), fp(60), 1},
		{"double schedule: another connection of the client is still open", Lines{
			Attempts: []record.WSAttempt{opened(0, 1, 1, -900, -899, ""), opened(0, 2, 2, -500, -480, ""), opened(0, 3, 3, 400, 420, "")},
			Closes: []record.WSClose{closed(0, 1, 1, 100, 1001, srv), closed(0, 2, 2, 300, 1001, srv),
				closed(0, 3, 3, 900, 1000, cli)}}, fp(0), fp(120), fp(120), 0},
		{"a connection closed before does not count (but the first close had it open)", Lines{
			Attempts: []record.WSAttempt{opened(0, 1, 1, -900, -899, ""), opened(0, 2, 2, -500, -480, ""), opened(0, 3, 3, 400, 420, "")},
			Closes: []record.WSClose{closed(0, 1, 1, 100, 1001, srv), closed(0, 2, 2, 50, 1001, srv),
				closed(0, 3, 3, 900, 1000, cli)}}, fp(0), fp(320), fp(320), 0},
		{"a connection never closed keeps the client connected", Lines{
			Attempts: []record.WSAttempt{opened(0, 1, 1, -900, -899, ""), opened(0, 2, 2, -500, -480, "")},
			Closes:   []record.WSClose{closed(0, 1, 1, 100, 1006, record.WSClosedAbnormal)}}, fp(0), fp(0), fp(0), 0},
	}
	for _, tt := range tests {
		p50, p99, mx, un := wsRestore(&tt.ws)
		if !eqF(p50, tt.p50) || !eqF(p99, tt.p99) || !eqF(mx, tt.max) || un != tt.unrestored {
			t.Errorf("%s: p50 %v p99 %v max %v unrestored %d, want %v %v %v %d", tt.name, show(p50), show(p99), show(mx), un,
				show(tt.p50), show(tt.p99), show(tt.max), tt.unrestored)
		}
	}
}

func TestWSAttemptsPerClient(t *testing.T) {
	tests := []struct {
		name string
		ws   Lines
		max  int
		mean *float64
	}{
		{"no client", Lines{}, 0, nil},
		{"one attempt each", Lines{Attempts: []record.WSAttempt{opened(0, 1, 1, 0, 1, ""), opened(1, 1, 2, 0, 1, "")}}, 1, fp(1)},
		{"duplicate attempts of the double-schedule bug count", Lines{Attempts: []record.WSAttempt{opened(0, 1, 1, 0, 1, ""),
			refused(0, 2, 10, 0, "", "", record.ClassRefused), refused(0, 3, 10, 0, "", "", record.ClassRefused),
			opened(1, 1, 2, 0, 1, "")}}, 3, fp(2)},
		{"a client without attempts counts in the mean", Lines{Attempts: []record.WSAttempt{opened(0, 1, 1, 0, 1, ""), opened(0, 2, 2, 5, 6, "")},
			Clients: []record.WSClient{{Client: 0}, {Client: 1}}}, 2, fp(1)},
	}
	for _, tt := range tests {
		mx, mean := wsAttemptsPerClient(&tt.ws)
		if mx != tt.max || !eqF(mean, tt.mean) {
			t.Errorf("%s: max %d mean %v, want %d %v", tt.name, mx, show(mean), tt.max, show(tt.mean))
		}
	}
}

func TestWSAfterReadyFalse(t *testing.T) {
	const r0, r1 = "replica-0:8080", "replica-1:8080"
	attempts := []record.WSAttempt{
		opened(0, 1, 1, -10, -9, r0), // before ready_false
		opened(1, 1, 2, 5, 6, r0),
		opened(2, 1, 3, 5, 6, r1),
		refused(3, 1, 7, 503, record.RefusalDraining, r0, record.ClassHTTPError),
		refused(4, 1, 8, 503, record.RefusalCapacity, r1, record.ClassHTTPError),
		refused(5, 1, 9, 503, "", "", record.ClassHTTPError),
		refused(6, 1, 9, 502, "", "", record.ClassHTTPError),
		refused(7, 1, 9, 0, "", "", record.ClassRefused),
	}
	tests := []struct {
		name                   string
		acted                  func(string) bool
		acc, drain, capa, prox int
	}{
		{"direct: every upgrade is the replica's", func(string) bool { return true }, 2, 1, 1, 1},
		{"behind a proxy: accepted by the acted-on replica only", func(u string) bool { return strings.HasPrefix(u, "replica-0:") }, 1, 1, 1, 1},
	}
	for _, tt := range tests {
		var w Metrics
		wsAfterReadyFalse(&w, attempts, wsAt(0), tt.acted)
		got := []int{*w.WSAcceptedAfterReadyFalse, *w.WSRefusedDraining, *w.WSRefusedCapacity, *w.WSRefusedProxy}
		if want := []int{tt.acc, tt.drain, tt.capa, tt.prox}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: accepted/draining/capacity/proxy = %v, want %v", tt.name, got, want)
		}
	}
}

func TestWSPeakHandshakes(t *testing.T) {
	const r0, r1 = "replica-0:8080", "replica-1:8080"
	var storm []record.WSAttempt
	for i := range 5 { // 5 answered by replica-1 in [200, 300) ms
		storm = append(storm, opened(i, 2, uint64(10+i), 200+float64(i)*10, 260, r1))
	}
	storm = append(storm,
		refused(9, 2, 250, 503, record.RefusalCapacity, r1, record.ClassHTTPError), // its own refusal: answered
		refused(9, 3, 251, 503, "", "", record.ClassHTTPError),                     // the proxy's: no instance
		refused(9, 4, 252, 0, "", "", record.ClassRefused),                         // never answered
	)
	tests := []struct {
		name     string
		attempts []record.WSAttempt
		proxied  bool
		peak     int
		at       wsPeakAt
	}{
		{"none", nil, false, 0, wsPeakAt{}},
		{"before the base not counted", []record.WSAttempt{opened(0, 1, 1, -50, -40, ""), opened(1, 1, 2, -20, -10, "")}, false, 0, wsPeakAt{}},
		{"direct: every answer is the target's", append([]record.WSAttempt{opened(0, 1, 1, 10, 11, r0), opened(1, 1, 2, 20, 21, r0)}, storm...), false, 6,
			wsPeakAt{bucket: 2, instance: wsDirectInstance}},
		{"behind a proxy: per upstream", append([]record.WSAttempt{opened(0, 1, 1, 210, 211, r0), opened(1, 1, 2, 220, 221, r0)}, storm...), true, 6,
			wsPeakAt{bucket: 2, instance: r1}},
		{"a tie goes to the earlier bucket", []record.WSAttempt{opened(0, 1, 1, 150, 151, r0), opened(1, 1, 2, 50, 51, r1)}, true, 1,
			wsPeakAt{bucket: 0, instance: r1}},
	}
	for _, tt := range tests {
		peak, at := wsPeakHandshakes(tt.attempts, wsT0, tt.proxied)
		if peak != tt.peak || at != tt.at {
			t.Errorf("%s: peak %d at %+v, want %d at %+v", tt.name, peak, at, tt.peak, tt.at)
		}
	}
}

func TestWSBudget(t *testing.T) {
	ten, two := 10, 2
	tests := []struct {
		name   string
		env    map[string]string
		stop   *int
		budget *float64
		fits   *bool
		note   string
	}{
		{"unset: the targets' defaults", map[string]string{"MODE": "full"}, &ten, fp(2000), ptr(true), ""},
		{"not recorded: not measured", nil, &ten, nil, nil, "environment is not in events.json"},
		{"set, fits", map[string]string{"PRESTOP_MS": "3000", "CLOSE_SPREAD_MS": "5000", "CLOSE_DEADLINE_MS": "1500"}, &ten, fp(9500), ptr(true), ""},
		{"set, does not fit", map[string]string{"PRESTOP_MS": "3000", "CLOSE_SPREAD_MS": "8000"}, &ten, fp(13000), ptr(false), ""},
		{"exactly the stop timeout does not fit", map[string]string{"CLOSE_SPREAD_MS": "0", "CLOSE_DEADLINE_MS": "2000"}, &two, fp(2000), ptr(false), ""},
		{"stop timeout unknown", map[string]string{"CLOSE_SPREAD_MS": "100"}, nil, fp(2100), nil, ""},
		{"a value that does not parse", map[string]string{"CLOSE_SPREAD_MS": "5s"}, &ten, nil, nil, `CLOSE_SPREAD_MS="5s"`},
	}
	for _, tt := range tests {
		e := wsEnv{vars: tt.env}
		b, f := wsBudget(&e, tt.stop)
		if !eqF(b, tt.budget) || (f == nil) != (tt.fits == nil) || f != nil && *f != *tt.fits {
			t.Errorf("%s: budget %v fits %v, want %v %v", tt.name, show(b), f, show(tt.budget), tt.fits)
		}
		if got := strings.Join(e.notes, "; "); tt.note == "" && got != "" || !strings.Contains(got, tt.note) {
			t.Errorf("%s: notes %q, want %q", tt.name, got, tt.note)
		}
	}
}

func TestWSEventTotals(t *testing.T) {
	var w Metrics
	wsEventTotals(&w, []record.WSClient{
		{Client: 0, WSEventCounts: record.WSEventCounts{Received: 100, DupRejected: 4, DupAccepted: 1, Replayed: 7, Gaps: 1, Skipped: 3}, Unknown: 3},
		{Client: 1, WSEventCounts: record.WSEventCounts{Received: 50}, Unknown: 0},
	})
	got := []int{w.WSEventsDelivered, w.WSEventsDupRejected, w.WSEventsDupAccepted, w.WSEventsUnknown, w.WSEventsReplayed}
	if want := []int{146, 4, 1, 3, 7}; !reflect.DeepEqual(got, want) {
		t.Errorf("delivered/dup_rejected/dup_accepted/unknown/replayed = %v, want %v", got, want)
	}
}
