package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// The synthetic ws result directory of the ws golden and plot tests lives
// in testdata/wsresult; go test -update rewrites it with writeWSFixture.
// Two reconnect policies against a full-mode replica behind Caddy that
// retires 20 streams over a 200 ms spread: immediate (a storm that meets
// replica-1's handshake capacity) and full jitter (spread out).

// wsFixtureDir is the committed synthetic ws result directory.
const wsFixtureDir = "testdata/wsresult"

// The fixture's moments, in ms after the load start (fixtureBase).
const (
	wsFixT0      = 1000.0 // the action
	wsFixEnd     = 5000.0 // the load ends: clients close with 1000
	wsFixClients = 20
)

// wsFixUp names the replicas' upstreams.
var wsFixUp = [2]string{"replica-0:8080", "replica-1:8080"}

// wsFixRun builds one run's lines: every client opens on replica-0, is
// retired (1001 in the spread, the last terminated: 1006), and reconnects
// by policy to replica-1, which admits 5 handshakes per 100 ms.
type wsFixRun struct {
	policy   string
	lines    []any // attempts and closes, in time order once sorted
	clients  []record.WSClient
	conn     uint64
	admitted map[int64]int
}

// attempt records one attempt of client c and reports the connection id
// (0: not opened).
func (f *wsFixRun) attempt(c *record.WSClient, startMs float64, up int, refusal string) uint64 {
	c.Attempts++
	a := record.WSAttempt{Type: record.TypeWSAttempt, Client: c.Client, Attempt: c.Attempts, Cause: "close",
		Start: at(startMs), End: at(startMs + 1), Upstream: wsFixUp[up]}
	if c.Attempts == 1 {
		a.Cause = "start"
	}
	bucket := int64((startMs - wsFixT0) / 100)
	switch {
	case refusal == "" && up == 1 && f.admitted[bucket] >= 5:
		refusal = record.RefusalCapacity
		fallthrough
	case refusal != "":
		a.Status, a.Refusal, a.Class = 503, refusal, record.ClassHTTPError
		c.Failed++
	default:
		if up == 1 {
			f.admitted[bucket]++
		}
		f.conn++
		a.Conn, a.Status, a.Class = f.conn, 101, record.ClassOK
		c.Opened++
	}
	f.lines = append(f.lines, a)
	return a.Conn
}

// close records the end of connection conn of client c, with one event
// per 100 ms it was open and the gap since the client's last event.
func (f *wsFixRun) close(c *record.WSClient, conn uint64, openedMs, closedMs float64, code int, by string, gap int64) {
	ev := record.WSEventCounts{Received: int(closedMs-openedMs) / 100}
	if gap > 0 {
		ev.Gaps, ev.Skipped = 1, gap
	}
	c.Closes++
	c.WSEventCounts.Add(ev)
	c.Unknown += gap
	f.lines = append(f.lines, record.WSClose{Type: record.TypeWSClose, Client: c.Client, Attempt: c.Attempts, Conn: conn,
		Opened: at(openedMs + 1), Closed: at(closedMs), Code: code, ClosedBy: by, WSEventCounts: ev})
}

// client plays client i through the run.
func (f *wsFixRun) client(i int) {
	c := record.WSClient{Type: record.TypeWSClient, Client: i}
	start := float64(i * 10)
	conn := f.attempt(&c, start, 0, "")
	closeAt, code, by := wsFixT0+100+float64(i)*10, 1001, record.WSClosedByServer
	if i == wsFixClients-1 {
		closeAt, code, by = wsFixT0+2100, record.WSCodeAbnormal, record.WSClosedAbnormal
	}
	f.close(&c, conn, start, closeAt, code, by, 0)
	next, retry := closeAt+2, 20.0
	if f.policy == "full-jitter" {
		next, retry = closeAt+float64((i*37)%10)*100+5, 150
	}
	if f.policy == "immediate" && i%4 == 0 {
		f.attempt(&c, next, 0, record.RefusalDraining) // Caddy still routed it to the retiring replica
		next += retry
	}
	for c.Attempts < 10 {
		if conn = f.attempt(&c, next, 1, ""); conn != 0 {
			break
		}
		next += retry
	}
	if conn != 0 {
		f.close(&c, conn, next, wsFixEnd, 1000, record.WSClosedByClient, int64(next-closeAt)/100)
	} else {
		c.Exhausted = true
	}
	if c.Received > 0 {
		c.FirstSeq, c.LastSeq = 1, int64(c.Received)+c.Unknown
	}
	f.clients = append(f.clients, c)
}

// wsFixMeta is the Meta of one fixture run.
func wsFixMeta(variant string, run int) record.Meta {
	m := fixtureMeta(variant, run)
	m.Scenario, m.Topology, m.LoadEndNs, m.LoadKind = "fixture-ws", record.TopologyCaddy, at(wsFixEnd), record.LoadKindWS
	m.Action = &record.Action{Kind: record.ActionStop, Roll: true, StopTimeoutS: intp(10), Replica: 0, AfterMs: wsFixT0,
		SentNs: at(wsFixT0), ReturnedNs: at(wsFixT0 + 2300)}
	env := map[string]string{"MODE": "full", "PORT": "8080", "PRESTOP_MS": "100", "CLOSE_SPREAD_MS": "200", "UPGRADES_PER_S": "50"}
	ev := func(ms float64, name string) record.Event { return record.Event{TimeNs: at(wsFixT0 + ms), Event: name} }
	m.Replicas = []record.Replica{
		{Name: "replica-0", Image: "targetapp:full", StopTimeoutS: intp(10), Env: env, Exited: true, ExitCode: intp(0), ExitedNs: at(wsFixT0 + 2250),
			Events: []record.Event{{TimeNs: at(-500), Event: record.EventUp, Mode: "full"}, ev(1, record.EventSignal), ev(1.5, record.EventReadyFalse),
				ev(101, record.EventListenerClosed), ev(2101, record.EventWSTerminated), ev(2200, record.EventDrained)}},
		{Name: "replica-1", Image: "targetapp:full", StopTimeoutS: intp(10), Env: env,
			Events: []record.Event{{TimeNs: at(-500), Event: record.EventUp, Mode: "full"}}},
	}
	return m
}

// writeWSFixture writes the synthetic ws result directory into dir.
func writeWSFixture(dir string) error {
	refs := []resultdir.VariantRef{{Label: "policy=immediate", Slug: "policy-immediate"}, {Label: "policy=full-jitter", Slug: "policy-full-jitter"}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := resultdir.WriteVariants(dir, refs); err != nil {
		return err
	}
	for _, ref := range refs {
		for run := 1; run <= 2; run++ {
			f := &wsFixRun{policy: ref.Label[len("policy="):], admitted: map[int64]int{}}
			for i := range wsFixClients {
				f.client(i)
			}
			if ref.Slug == "policy-full-jitter" && run == 2 {
				f.clients = slices.Delete(f.clients, 3, 4) // client 3 never printed its totals
			}
			rd := resultdir.RunDir(dir, ref.Slug, run)
			if err := os.MkdirAll(rd, 0o755); err != nil {
				return err
			}
			if err := resultdir.WriteJSON(filepath.Join(rd, resultdir.EventsFile), wsFixMeta(ref.Label, run)); err != nil {
				return err
			}
			if err := f.write(filepath.Join(rd, resultdir.RecordsFile)); err != nil {
				return err
			}
		}
	}
	return nil
}

// lineTime orders the fixture's lines: an attempt by its end, a close by
// its close time.
func lineTime(l any) int64 {
	switch v := l.(type) {
	case record.WSAttempt:
		return v.End
	case record.WSClose:
		return v.Closed
	}
	panic(fmt.Sprintf("line %T", l))
}

// write writes records.jsonl: the start line, the attempts and closes in
// time order, the clients' totals.
func (f *wsFixRun) write(name string) (err error) {
	file, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}()
	slices.SortStableFunc(f.lines, func(a, b any) int { return cmpInt64(lineTime(a), lineTime(b)) })
	bw := bufio.NewWriter(file)
	enc := json.NewEncoder(bw)
	out := append([]any{record.Start{Type: record.TypeStart, LoadStart: fixtureBase}}, f.lines...)
	for _, c := range f.clients {
		out = append(out, c)
	}
	for _, l := range out {
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return bw.Flush()
}
