package runner

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// Registers this file's load kind with the runner (registry.go).
func init() {
	loadDrivers.register(scenarios.LoadWS, func() loadDriver { return &wsDriver{} })
}

// wsDriver is the WebSocket load agent (cmd/wsagent, load.kind ws):
// load.ws.clients long-lived connections on the target's event stream.
// Its lines (ws_attempt, ws_close, ws_client) are its own: observe tallies
// them for the accounting rule (record.CheckWSAccounting).
type wsDriver struct {
	clients   int // load.ws.clients, set by args: each must print its totals
	dec       record.Line
	tally     record.WSTally
	malformed []error
	// attempts and failed count ws_attempt lines for progress (read from
	// the progress ticker while observe runs).
	attempts, failed atomic.Int64
}

func (*wsDriver) name() string { return "ws agent" }

func (*wsDriver) image(ctx context.Context, imgs imageSource) (string, error) {
	ref, err := imgs.Go(ctx, images.WSAgentImageName, images.WSAgentPackage)
	if err != nil {
		return "", fmt.Errorf("ws agent image: %w", err)
	}
	return ref, nil
}

// wsSeed is the seed of run v's client delays: load.ws.seed, or one
// derived from the run's sequence number (recorded in the agent's
// arguments, so a run can be repeated).
func wsSeed(v loadView) uint64 {
	if s := v.scenario().Load.WS().Seed; s != 0 {
		return s
	}
	return uint64(v.runSeq()) + 1
}

// args are cmd/wsagent's flags for the scenario's ws block; it keeps the
// client count for check.
func (d *wsDriver) args(v loadView) []string {
	l := v.scenario().Load
	w := l.WS()
	d.clients = w.Clients
	p := w.Policy
	args := []string{
		"-target", v.agentTarget(),
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
		"-seed", strconv.FormatUint(wsSeed(v), 10),
		"-wait-ready", v.scenario().Target.Protocol.ReadyPath,
		"-wait-timeout", v.readyTimeout().String(),
	}
	if p.Kind != scenarios.WSImmediate {
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

// bound is the load's duration after its start line, plus a closing
// handshake and a handshake still under way when it ended.
func (*wsDriver) bound(spec scenarios.Spec) time.Duration {
	w := spec.Load.WS()
	return spec.Load.Duration.D() + w.CloseTimeout.D() + w.HandshakeTimeout.D()
}

// observe tallies one ws line; a line that does not decode is kept as
// malformed.
func (d *wsDriver) observe(typ string, line []byte) {
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

// progress counts connection attempts.
func (d *wsDriver) progress(*agentStream) LoadCount {
	return LoadCount{Done: d.attempts.Load(), Failed: d.failed.Load(), Unit: "connection attempts"}
}

// check is the ws accounting rule (record.CheckWSAccounting) for every one
// of load.ws.clients clients, plus: no request, probe or malformed line.
func (d *wsDriver) check(s *agentStream) error {
	var errs []error
	s.mu.Lock()
	requests, probes, malformed, last := s.tally.Requests, s.tally.Probes, s.tally.Malformed, s.tally.LastMalformed
	s.mu.Unlock()
	if malformed > 0 {
		errs = append(errs, fmt.Errorf("%d malformed lines (last: %s)", malformed, last))
	}
	if requests > 0 || probes > 0 {
		errs = append(errs, fmt.Errorf("%d request and %d probe lines in a ws run", requests, probes))
	}
	for _, e := range d.malformed {
		errs = append(errs, fmt.Errorf("malformed ws line: %w", e))
	}
	errs = append(errs, record.CheckWSAccounting(&d.tally)...)
	if err := d.checkClients(d.clients); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("ws accounting: %w", joinProblems(errs))
	}
	return nil
}

// checkClients says which of want clients printed no ws_client line.
func (d *wsDriver) checkClients(want int) error {
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

// collect records the kind and the lines' totals.
func (d *wsDriver) collect(meta *record.Meta, s *agentStream) {
	meta.LoadKind = record.LoadKindWS
	tot := d.tally.Totals()
	meta.SetPart(&tot)
}

// outcome is "N clients, A attempts (F failed), C closes (1000: x, 1001: y)".
func (*wsDriver) outcome(m record.Meta) string {
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
