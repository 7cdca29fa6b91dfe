package node_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/record"
)

// runJS runs a node script in this directory (where it can require
// ./events.js) and returns its stdout.
func runJS(t *testing.T, script string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, nodeBin(t), "-e", script).Output()
	if err != nil {
		t.Fatalf("node -e: %v; stderr %s", err, stderrOf(err))
	}
	return string(out)
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// addr is the host:port of a started target.
func (p *proc) addr() string { return strings.TrimPrefix(p.base, "http://") }

// dialEvents opens /events?q on p; the connection is closed at cleanup.
func (p *proc) dialEvents(q string) (*websocket.Conn, *http.Response, error) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://"+p.addr()+"/events"+q, nil)
	if c != nil {
		p.t.Cleanup(func() { _ = c.CloseNow() })
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

// Frames are numbered by the wall clock: consecutive seq, id ev-SEQ, ts_ns
// = seq × interval, live.
func TestEventsFrames(t *testing.T) {
	p := startNode(t, true, "MODE=full", "EVENTS_PER_S=200")
	c, _, err := p.dialEvents("")
	if err != nil {
		t.Fatal(err)
	}
	prev := readFrame(t, c)
	for range 10 {
		f := readFrame(t, c)
		if f.Seq != prev.Seq+1 || f.ID != "ev-"+strconv.FormatInt(f.Seq, 10) || f.Replay ||
			f.Type != record.WSFrameEvent || f.TimeNs != f.Seq*int64(5*time.Millisecond) {
			t.Fatalf("frame %+v after seq %d: want the next seq, its id, ts_ns = seq × 5 ms, live", f, prev.Seq)
		}
		prev = f
	}
	if d := time.Since(time.Unix(0, prev.TimeNs)); d < -time.Second || d > 5*time.Second {
		t.Errorf("frame due %v ago: the stream is not numbered by the wall clock", d)
	}
}

// ?after=SEQ replays what the buffer holds (marked replay, joining the live
// frames without a gap); without a buffer the stream starts live past the
// gap.
func TestEventsReplayAfterCursor(t *testing.T) {
	for _, tt := range []struct {
		name   string
		replay int
	}{{"replay", 100000}, {"no replay", 0}} {
		t.Run(tt.name, func(t *testing.T) {
			p := startNode(t, true, "MODE=full", "EVENTS_PER_S=200", "EVENTS_REPLAY="+strconv.Itoa(tt.replay))
			c, _, err := p.dialEvents("")
			if err != nil {
				t.Fatal(err)
			}
			cursor := readFrame(t, c).Seq
			for readFrame(t, c).Seq < cursor+10 { // 10 more events exist
			}
			_ = c.Close(websocket.StatusNormalClosure, "")
			c2, _, err := p.dialEvents("?after=" + strconv.FormatInt(cursor, 10))
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
			replayed := 0
			for f.Replay {
				replayed++
				next := readFrame(t, c2)
				if next.Seq != f.Seq+1 {
					t.Fatalf("frame %d after %d: replay and live must join without a gap", next.Seq, f.Seq)
				}
				f = next
			}
			t.Logf("after=%d: %d frames replayed, then live from %d", cursor, replayed, f.Seq)
		})
	}
}

// A bad cursor is 400; a plain GET (no upgrade) is 426.
func TestEventsBadRequests(t *testing.T) {
	p := startNode(t, true, "MODE=full")
	s, b, _ := p.do("GET", "/events?after=x", nil)
	expect(t, "after=x", s, b, 400, `bad after=\"x\"`)
	s, b, _ = p.do("GET", "/events?after=-1", nil)
	expect(t, "after=-1", s, b, 400, `bad after=\"-1\"`)
	s, b, _ = p.do("GET", "/events", nil)
	expect(t, "plain GET", s, b, 426, "upgrade required")
	s, b, _ = p.do("POST", "/events", nil)
	expect(t, "POST", s, b, 405, "method")
	if _, _, err := p.dialEvents("?after=x"); err == nil {
		t.Error("upgrade with after=x admitted, want 400")
	}
}

// refused checks a refused upgrade: 503, the refusal header, Connection:
// close.
func refused(t *testing.T, what string, resp *http.Response, err error, want string) {
	t.Helper()
	if err == nil || resp == nil {
		t.Fatalf("%s: err %v, response %v; want 503 %s", what, err, resp, want)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get(record.RefusalHeader) != want || !resp.Close {
		t.Fatalf("%s: %d %s=%q close=%v, want 503 %q with Connection: close", what, resp.StatusCode,
			record.RefusalHeader, resp.Header.Get(record.RefusalHeader), resp.Close, want)
	}
}

// Over UPGRADES_PER_S the upgrade is refused with capacity. At 1/s the
// bucket holds one token: the second upgrade right after the first finds
// it empty (unless a whole second passed between them).
func TestEventsCapacity(t *testing.T) {
	p := startNode(t, true, "MODE=full", "UPGRADES_PER_S=1")
	t0 := time.Now()
	if _, _, err := p.dialEvents(""); err != nil {
		t.Fatalf("first upgrade: %v, want admitted", err)
	}
	_, resp, err := p.dialEvents("")
	if el := time.Since(t0); el >= time.Second {
		t.Skipf("inconclusive: the two upgrades took %v, the bucket may have refilled", el)
	}
	refused(t, "second upgrade", resp, err, record.RefusalCapacity)
}

// The token bucket, table-tested in node on a given clock (admission.go's
// table).
func TestEventsAdmissionBucket(t *testing.T) {
	for _, tt := range []struct {
		name string
		rate int
		at   []int // ms of each upgrade
		want string
	}{
		{"burst of a tenth of a second", 100, []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "11111111110"},
		{"refills at the rate", 10, []int{0, 50, 100, 150, 200}, "10101"},
		{"never more than the burst after a pause", 10, []int{0, 5000, 5000}, "110"},
		{"a clock going back takes nothing back", 10, []int{100, 0, 200}, "101"},
		{"below 10/s the burst is one", 1, []int{0, 500, 1000}, "101"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			at, _ := json.Marshal(tt.at)
			got := runJS(t, `const { Admission } = require('./events.js');
const a = new Admission(`+strconv.Itoa(tt.rate)+`);
process.stdout.write(`+string(at)+`.map((ms) => a.allow(1800000000000000000n + BigInt(ms) * 1000000n) ? '1' : '0').join(''));`)
			if got != tt.want {
				t.Errorf("admitted %s, want %s", got, tt.want)
			}
		})
	}
}

// The ring, on a given clock: start and after as eventstream.go's.
func TestEventsRing(t *testing.T) {
	got := runJS(t, `const { EventStream } = require('./events.js');
let now = 1000n * 10000000n; // seq 1000 at 100/s
const s = new EventStream(100, 3, () => now, () => {});
const out = [];
out.push(JSON.stringify(s.start(0, true))); // nothing yet
s.tick();
now += 50000000n; s.tick(); // 1001..1005
out.push(JSON.stringify(s.start(0, false)), JSON.stringify(s.start(0, true)), JSON.stringify(s.start(1004, true)));
const [frames, last] = s.after(1001, 1003);
out.push(last, frames.join(' '));
process.stdout.write(out.join('\n'));`)
	want := `[0,0]
[1005,1005]
[1002,1005]
[1004,1005]
1005
{"type":"event","id":"ev-1002","seq":1002,"ts_ns":10020000000,"replay":true} ` +
		`{"type":"event","id":"ev-1003","seq":1003,"ts_ns":10030000000,"replay":true} ` +
		`{"type":"event","id":"ev-1004","seq":1004,"ts_ns":10040000000} ` +
		`{"type":"event","id":"ev-1005","seq":1005,"ts_ns":10050000000}`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Without ws, the target names where it looked and the fix.
func TestEventsMissingWS(t *testing.T) {
	got := runJS(t, `try { require('./events.js').loadWS('ws-not-there', '/nonexistent/ws'); } catch (e) { process.stdout.write(e.message); }`)
	for _, want := range []string{"/nonexistent/ws", "apt-get install node-ws"} {
		if !strings.Contains(got, want) {
			t.Errorf("error %q lacks %q", got, want)
		}
	}
}

func TestEventsBadEnv(t *testing.T) {
	for _, tt := range []struct{ kv, rng string }{
		{"EVENTS_PER_S=1001", "0..1000"},
		{"EVENTS_REPLAY=-1", "0..1000000"},
		{"UPGRADES_PER_S=x", "0..1000000"},
		{"CLOSE_SPREAD_MS=86400001", "0..86400000"},
		{"CLOSE_DEADLINE_MS=0", "1..4000"},
		{"CLOSE_DEADLINE_MS=4001", "1..4000"},
	} {
		p := startNode(t, false, tt.kv)
		if code, _ := p.wait(10 * time.Second); code != 2 {
			t.Errorf("%s: exit %d, want 2", tt.kv, code)
		}
		k, v, _ := strings.Cut(tt.kv, "=")
		if want := "target: invalid " + k + "=" + strconv.Quote(v) + ": must be an integer in " + tt.rng; !strings.Contains(p.stderr.String(), want) {
			t.Errorf("%s: stderr %q lacks %q", tt.kv, p.stderr.String(), want)
		}
	}
}

// INSTANCE names the replica on the 101 (record.UpstreamHeader), as the Go
// target does; a bad UPGRADES_WHILE_DRAINING is refused at start.
func TestEventsInstanceHeader(t *testing.T) {
	p := startNode(t, true, "MODE=full", "INSTANCE=replica-1:8080")
	_, resp, err := p.dialEvents("")
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Header.Get(record.UpstreamHeader); got != "replica-1:8080" {
		t.Fatalf("%s %q on the 101, want replica-1:8080", record.UpstreamHeader, got)
	}
}
