package targetapp

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// dialEvents opens /events on addr with the query q; the connection is
// closed when the test ends.
func dialEvents(t *testing.T, addr, q string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://"+addr+"/events"+q, nil)
	if c != nil {
		t.Cleanup(func() { _ = c.CloseNow() })
	}
	return c, resp, err
}

// readFrame reads one event frame within a generous bound.
func readFrame(t *testing.T, c *websocket.Conn) record.WSFrame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read frame: %v", err)
	}
	var f record.WSFrame
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("frame %q: %v", b, err)
	}
	return f
}

// lastSeq is the highest sequence number the app's stream holds.
func lastSeq(a *App) int64 {
	a.ws.events.mu.Lock()
	defer a.ws.events.mu.Unlock()
	return a.ws.events.last
}

func TestEventsStreamNumbersConsecutively(t *testing.T) {
	cfg := testConfig(t)
	cfg.EventsPerS = 200
	a, _ := newTestApp(t, cfg)
	c, _, err := dialEvents(t, serve(t, a), "")
	if err != nil {
		t.Fatal(err)
	}
	prev := readFrame(t, c)
	for range 5 {
		f := readFrame(t, c)
		if f.Seq != prev.Seq+1 || f.ID != "ev-"+strconv.FormatInt(f.Seq, 10) || f.Replay || f.Type != record.WSFrameEvent {
			t.Fatalf("frame %+v after seq %d: want the next seq, its id, live", f, prev.Seq)
		}
		prev = f
	}
}

func TestEventsReplayAfterCursor(t *testing.T) {
	for _, tt := range []struct {
		name   string
		replay int
	}{{"replay", 100000}, {"no replay", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.EventsPerS = 200
			cfg.EventsReplay = tt.replay
			a, _ := newTestApp(t, cfg)
			addr := serve(t, a)
			c, _, err := dialEvents(t, addr, "")
			if err != nil {
				t.Fatal(err)
			}
			cursor := readFrame(t, c).Seq
			_ = c.Close(websocket.StatusNormalClosure, "")
			eventually(t, 5*time.Second, "10 more events", func() bool { return lastSeq(a) >= cursor+10 })
			c2, _, err := dialEvents(t, addr, "?after="+strconv.FormatInt(cursor, 10))
			if err != nil {
				t.Fatal(err)
			}
			f := readFrame(t, c2)
			switch {
			case tt.replay > 0 && (f.Seq != cursor+1 || !f.Replay):
				t.Fatalf("first frame after cursor %d = %+v, want seq %d replayed", cursor, f, cursor+1)
			case tt.replay == 0 && (f.Seq <= cursor+10 || f.Replay):
				t.Fatalf("first frame after cursor %d = %+v, want a live frame past the gap", cursor, f)
			}
			for f.Replay {
				next := readFrame(t, c2)
				if next.Seq != f.Seq+1 {
					t.Fatalf("frame %d after %d: replay and live must join without a gap", next.Seq, f.Seq)
				}
				f = next
			}
		})
	}
}

func TestEventsBadCursor(t *testing.T) {
	a, _ := newTestApp(t, testConfig(t))
	resp, err := http.Get("http://" + serve(t, a) + "/events?after=x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400", resp.StatusCode)
	}
}

func TestEventsAdmission(t *testing.T) {
	fixed := time.Unix(1_800_000_000, 0)
	for _, tt := range []struct {
		name    string
		perS    int
		drain   bool
		admit   bool     // UPGRADES_WHILE_DRAINING=accept
		refusal []string // per successive upgrade: "" admitted, else the refusal
	}{
		{"draining refuses", 0, true, false, []string{record.RefusalDraining}},
		{"draining admits when told to (readiness-only server)", 0, true, true, []string{"", ""}},
		{"no capacity limit", 0, false, false, []string{"", "", ""}},
		{"capacity 10/s admits one per 100 ms", 10, false, false, []string{"", record.RefusalCapacity, record.RefusalCapacity}},
		{"capacity 30/s admits a burst of 3", 30, false, false, []string{"", "", "", record.RefusalCapacity}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t)
			cfg.UpgradesPerS = tt.perS
			cfg.AdmitDraining = tt.admit
			out := &syncBuffer{}
			// A frozen clock: the bucket never refills during the test.
			a, err := New(cfg, NewLogger(out, nil), WithClock(func() time.Time { return fixed }))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = a.Close() })
			addr := serve(t, a)
			if tt.drain {
				a.BeginDrain()
			}
			for i, want := range tt.refusal {
				c, resp, err := dialEvents(t, addr, "")
				if want == "" {
					if err != nil {
						t.Fatalf("upgrade %d: %v, want admitted", i, err)
					}
					_ = c.CloseNow()
					continue
				}
				if err == nil || resp == nil {
					t.Fatalf("upgrade %d: err %v, response %v; want 503", i, err, resp)
				}
				if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get(record.RefusalHeader) != want ||
					!resp.Close {
					t.Fatalf("upgrade %d: %d %s=%q close=%v, want 503 %q with Connection: close", i,
						resp.StatusCode, record.RefusalHeader, resp.Header.Get(record.RefusalHeader), resp.Close, want)
				}
			}
		})
	}
}

func TestAdmissionBucket(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, tt := range []struct {
		name string
		rate int
		at   []int  // ms of each upgrade
		want []bool // admitted
	}{
		{"burst of a tenth of a second", 100, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, []bool{
			true, true, true, true, true, true, true, true, true, true, false}},
		{"refills at the rate", 10, []int{0, 50, 100, 150, 200}, []bool{true, false, true, false, true}},
		{"never more than the burst after a pause", 10, []int{0, 5000, 5000}, []bool{true, true, false}},
		{"a clock going back takes nothing back", 10, []int{100, 0, 200}, []bool{true, false, true}},
		{"below 10/s the burst is one", 1, []int{0, 500, 1000}, []bool{true, false, true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := newAdmission(tt.rate)
			for i, ms := range tt.at {
				if got := a.allow(at(ms)); got != tt.want[i] {
					t.Errorf("upgrade %d at %d ms: admitted %v, want %v", i, ms, got, tt.want[i])
				}
			}
		})
	}
}

// closeSeen is what one client saw of the retirement: the close code (-1
// without a close frame), the read error, and when.
type closeSeen struct {
	code int
	err  error
	at   time.Time
}

func TestEventsRetireSpread(t *testing.T) {
	const n = 8
	cfg := testConfig(t)
	cfg.EventsPerS = 100
	cfg.CloseSpread = 300 * time.Millisecond
	a, out := newTestApp(t, cfg)
	addr := serve(t, a)
	seen := make(chan closeSeen, n)
	for range n {
		c, _, err := dialEvents(t, addr, "")
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				if _, _, err := c.Read(context.Background()); err != nil {
					seen <- closeSeen{int(websocket.CloseStatus(err)), err, time.Now()}
					return
				}
			}
		}()
	}
	eventually(t, 5*time.Second, "every stream registered", func() bool { return a.WSConns() == n })
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := a.Drain(ctx, start)
	if !r.Drained || r.WSConns != 0 {
		t.Fatalf("drain %+v, want drained with no stream left", r)
	}
	bound := cfg.CloseSpread + 2*time.Second // the window plus generous slack
	for range n {
		var s closeSeen
		select {
		case s = <-seen:
		case <-time.After(5 * time.Second):
			t.Fatal("a client saw no close")
		}
		if s.code != int(websocket.StatusGoingAway) {
			t.Errorf("client ended with %v, want close 1001", s.err)
		}
		if d := s.at.Sub(start); d < 0 || d > bound {
			t.Errorf("close arrived %v after the drain began, want within [0, %v]", d, bound)
		}
	}
	evs := out.events(t)
	closing := find(evs, record.EventWSClosing)
	if len(closing) != 1 || closing[0].Conns == nil || *closing[0].Conns != n {
		t.Errorf("ws_closing events %+v, want one with conns=%d", closing, n)
	}
	if got := len(find(evs, record.EventWSCloseSent)); got != n {
		t.Errorf("%d ws_close_sent events, want %d", got, n)
	}
	for _, e := range find(evs, record.EventWSCloseSent) {
		if e.Conn == nil || e.Ms == nil || *e.Ms < 0 || *e.Ms > float64(bound.Milliseconds()) {
			t.Errorf("ws_close_sent %+v: want conn and ms within [0, %v]", e, bound)
		}
	}
	if got := find(evs, record.EventWSTerminated); len(got) != 0 {
		t.Errorf("ws_terminated %+v: every client answered its close frame", got)
	}
}

// TestEventsInstanceHeader: with INSTANCE set, the 101 names the replica in
// record.UpstreamHeader (a proxy's header rules skip upgrades); without
// it, the header is absent.
func TestEventsInstanceHeader(t *testing.T) {
	for _, instance := range []string{"replica-1:8080", ""} {
		cfg := testConfig(t)
		cfg.Instance = instance
		a, _ := newTestApp(t, cfg)
		_, resp, err := dialEvents(t, serve(t, a), "")
		if err != nil {
			t.Fatalf("INSTANCE=%q: %v", instance, err)
		}
		if got := resp.Header.Get(record.UpstreamHeader); got != instance {
			t.Errorf("INSTANCE=%q: %s %q on the 101", instance, record.UpstreamHeader, got)
		}
	}
}
