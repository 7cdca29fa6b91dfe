package websockets

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/internal/runner"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// driver is the WebSocket load agent (cmd/wsagent, load.kind ws):
// load.ws.clients long-lived connections on the target's event stream.
// Its lines (ws_attempt, ws_close, ws_client) are its own: Observe
// tallies them for the accounting rule (record.CheckWSAccounting). The
// runner makes a fresh one for each run.
type driver struct {
	clients   int // load.ws.clients, set by Args: each must print its totals
	dec       record.Line
	tally     record.WSTally
	malformed []error
	// attempts and failed count ws_attempt lines for progress (read from
	// the progress ticker while Observe runs).
	attempts, failed atomic.Int64
}

var (
	_ runner.LoadDriver  = (*driver)(nil)
	_ runner.LoadCounter = (*driver)(nil)
)

// Name names the load in messages.
func (*driver) Name() string { return "ws agent" }

// Image is the WebSocket load agent's image, built from cmd/wsagent.
func (*driver) Image(ctx context.Context, imgs runner.ImageSource) (string, error) {
	return runner.GoImage(ctx, imgs, "ws agent", images.WSAgentImageName, images.WSAgentPackage)
}

// seed is the seed of run v's client delays: load.ws.seed, or one
// derived from the run's sequence number (recorded in the agent's
// arguments, so a run can be repeated).
func seed(v runner.LoadView) uint64 {
	if s := LoadOf(v.Scenario().Load).Seed; s != 0 {
		return s
	}
	return uint64(v.RunSeq()) + 1
}

// Args are cmd/wsagent's flags for the scenario's ws block; it keeps the
// client count for Check.
func (d *driver) Args(v runner.LoadView) []string {
	l := v.Scenario().Load
	w := LoadOf(l)
	d.clients = w.Clients
	p := w.Policy
	args := []string{
		"-target", v.AgentTarget(),
		"-path", w.Path,
		"-clients", strconv.Itoa(w.Clients),
		"-policy", p.Kind,
		"-resume=" + strconv.FormatBool(w.Resume),
		"-resume-overlap", strconv.FormatInt(w.ResumeOverlap, 10),
		"-dedupe-size", strconv.Itoa(w.DedupeSize),
		"-max-attempts", strconv.Itoa(w.MaxAttempts),
		"-duration", l.Duration.String(),
		"-ramp", w.RampSpan(l.Duration.D()).String(),
		"-handshake-timeout", w.HandshakeTimeout.String(),
		"-close-timeout", w.CloseTimeout.String(),
		"-seed", strconv.FormatUint(seed(v), 10),
		"-wait-ready", v.Scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.ReadyTimeout().String(),
	}
	if p.Kind != Immediate {
		args = append(args, "-base", p.Base.String(), "-cap", p.Cap.String())
	}
	if p.StableAfter > 0 {
		args = append(args, "-stable-after", p.StableAfter.String())
	}
	if w.RawPeers > 0 {
		args = append(args, "-raw-peers", strconv.Itoa(w.RawPeers))
	}
	if p.DoubleSchedule {
		args = append(args, "-double-schedule")
	}
	return args
}

// Bound is the load's duration after its start line, plus a closing
// handshake and a handshake still under way when it ended.
func (*driver) Bound(spec scenarios.Spec) time.Duration {
	w := LoadOf(spec.Load)
	return spec.Load.Duration.D() + w.CloseTimeout.D() + w.HandshakeTimeout.D()
}

// Observe tallies one ws line; a line that does not decode is kept as
// malformed.
func (d *driver) Observe(typ string, line []byte) {
	switch typ {
	case record.TypeWSAttempt, record.TypeWSClose, record.TypeWSClient:
	default:
		d.malformed = append(d.malformed, fmt.Errorf("line of unknown type %q", typ))
		return
	}
	if err := d.dec.Decode(line); err != nil {
		d.malformed = append(d.malformed, err)
		return
	}
	switch v := d.dec.Value.(type) {
	case *record.WSAttempt:
		d.tally.AddAttempt(*v)
		d.attempts.Add(1)
		if v.Class != record.ClassOK {
			d.failed.Add(1)
		}
	case *record.WSClose:
		d.tally.AddClose(*v)
	case *record.WSClient:
		d.tally.AddClient(*v)
	}
}

// Progress counts connection attempts.
func (d *driver) Progress() runner.LoadCount {
	return runner.LoadCount{Done: d.attempts.Load(), Failed: d.failed.Load(), Unit: "connection attempts"}
}

// Check is the ws accounting rule (record.CheckWSAccounting) for every one
// of load.ws.clients clients, plus: no request, probe or malformed line
// in the stream's tally.
func (d *driver) Check(out runner.LoadOutput) error {
	if err := out.Account(d.problems); err != nil {
		return fmt.Errorf("ws accounting: %w", err)
	}
	return nil
}

// problems are the run's accounting problems, given the stream's tally t
// (which counts the lines of the types record knows): its malformed,
// request and probe lines, then the ws lines' own.
func (d *driver) problems(t *record.Tally) []error {
	var errs []error
	if t.Malformed > 0 {
		errs = append(errs, fmt.Errorf("%d malformed lines (last: %s)", t.Malformed, t.LastMalformed))
	}
	if t.Requests > 0 || t.Probes > 0 {
		errs = append(errs, fmt.Errorf("%d request and %d probe lines in a ws run", t.Requests, t.Probes))
	}
	for _, e := range d.malformed {
		errs = append(errs, fmt.Errorf("malformed ws line: %w", e))
	}
	errs = append(errs, record.CheckWSAccounting(&d.tally)...)
	if err := d.checkClients(d.clients); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// checkClients says which of want clients printed no ws_client line.
func (d *driver) checkClients(want int) error {
	ids := d.tally.ClientIDs()
	if len(ids) == want && (want == 0 || ids[want-1] == want-1) {
		return nil
	}
	have := map[int]bool{}
	for _, i := range ids {
		have[i] = true
	}
	var missing []string
	for i := 0; i < want && len(missing) < 10; i++ {
		if !have[i] {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	return fmt.Errorf("%d of %d clients printed their totals (missing: %s)", len(ids), want, strings.Join(missing, ", "))
}

// Collect records the kind and the lines' totals.
func (d *driver) Collect(meta *record.Meta, _ runner.LoadOutput) {
	meta.LoadKind = record.LoadKindWS
	tot := d.tally.Totals()
	meta.SetPart(&tot)
}

// Outcome is "N clients, A attempts (F failed), C closes (1000: x, 1001: y)".
func (*driver) Outcome(m record.Meta) string {
	w := m.WS()
	if w == nil {
		return "no ws lines"
	}
	codes := make([]string, 0, len(w.ClosesByCode))
	for c := range w.ClosesByCode {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	for i, c := range codes {
		codes[i] = fmt.Sprintf("%s: %d", c, w.ClosesByCode[c])
	}
	s := fmt.Sprintf("%d clients, %d attempts (%d failed), %d closes", w.Clients, w.Attempts, w.Failed, w.Closes)
	if len(codes) > 0 {
		s += " (" + strings.Join(codes, ", ") + ")"
	}
	return s
}
