package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/resultdir"
	"github.com/shutdownlab/shutdownlab/record"
)

// Result is everything a report is made of: every run of every variant of
// one scenario run directory, with its metrics. Raw request records are not
// kept (LoadRun reads them again when needed).
type Result struct {
	// Scenario is the scenario name (from the first run's Meta, else
	// effective.json's, else the directory's base name).
	Scenario string
	// GeneratedAt is stamped into the outputs; Load sets it to the current
	// UTC time, tests overwrite it.
	GeneratedAt time.Time
	// Fingerprint is the machine of the first run that has one.
	Fingerprint record.Fingerprint
	// Variants in scenario order.
	Variants []Variant
	// ProxyConfig is the exact proxy configuration (Caddy JSON) of the
	// first run that used one, ProxyConfigFrom that run's path relative to
	// the result directory, ProxyConfigSHA256 its hash; empty without a
	// proxy.
	ProxyConfig       string
	ProxyConfigFrom   string
	ProxyConfigSHA256 string
	// ScenarioYAML is the scenario file as run (scenario.yaml in the
	// result directory; empty when absent).
	ScenarioYAML string
	// Sets are the --set overrides it ran with (effective.json; nil when
	// there were none, or the result has no effective.json).
	Sets []string
	// Unreadable lists the run directories Load could not read
	// ("mode-full/run-002: events.json: ..."). Each is kept in its variant
	// as a run that does not count, with the error as its reason, so
	// report.md lists it among the runs not counted.
	Unreadable []string
}

// Labels returns the labels of the result's variants, in order.
func (r *Result) Labels() []string {
	out := make([]string, len(r.Variants))
	for i := range r.Variants {
		out[i] = r.Variants[i].Label
	}
	return out
}

// Variant is one variant of a scenario and its repetitions.
type Variant struct {
	// Label is the human label ("mode=full"); Slug its directory name.
	Label string
	Slug  string
	// Runs in run order.
	Runs []Run
}

// Run is one repetition: its Meta, its metrics and whether it counts.
type Run struct {
	// Name is the run directory's name ("run-001").
	Name string
	// Meta is events.json as written by the runner; when Meta.Agent was
	// nil and records.jsonl held a summary line, Load fills it from there.
	Meta record.Meta
	// Metrics are Compute(Meta, records).
	Metrics Metrics
	// Valid is true when the run counts toward the spread; Reason says why
	// not (see RunValidity).
	Valid  bool
	Reason string
}

// RunPath is a run directory relative to the result directory, with
// forward slashes ("mode-full/run-001"): the form report.md links use.
func RunPath(v *Variant, r *Run) string { return path.Join(v.Slug, r.Name) }

// RunValidity decides whether a run counts: the runner must have marked it
// valid, it must not be incomplete, and its accounting must add up. The
// reason names the first failed condition.
func RunValidity(meta record.Meta, m *Metrics) (bool, string) {
	switch {
	case !meta.Valid:
		switch {
		case meta.InvalidReason != "":
			return false, meta.InvalidReason
		case meta.Agent == nil && !loadFinished(meta):
			return false, "not marked valid, and no agent summary line: the run did not finish"
		}
		return false, "marked invalid by the runner (no reason recorded)"
	case meta.Incomplete:
		return false, "incomplete: interrupted"
	case !m.AccountingOK:
		return false, "accounting error"
	}
	return true, ""
}

// loadFinished reports whether an installed capability's load left its
// closing line in meta (Capability.Finished).
func loadFinished(meta record.Meta) bool {
	for _, c := range installed() {
		if c.Finished != nil && c.Finished(meta) {
			return true
		}
	}
	return false
}

// Load reads a scenario result directory: its variants in order
// (resultdir.Variants), then every <variant>/run-*/ with its events.json
// and records.jsonl[.gz], computing each run's metrics as it goes. The
// scenario's name comes from the runs, else from effective.json (a result
// whose harness was killed before any run finished), else from the
// directory's name.
func Load(dir string) (*Result, error) {
	refs, err := resultdir.Variants(dir)
	if err != nil {
		return nil, err
	}
	res := &Result{GeneratedAt: time.Now().UTC()}
	for _, ref := range refs {
		v, err := loadVariant(res, dir, ref)
		if err != nil {
			return nil, err
		}
		res.Variants = append(res.Variants, v)
	}
	// Written by the runner before the first run: still there when the
	// harness was killed before any run finished.
	eff, _ := resultdir.ReadEffective(dir)
	res.Sets = eff.Sets
	if res.Scenario == "" {
		res.Scenario = eff.Scenario
	}
	if res.Scenario == "" {
		res.Scenario = filepath.Base(filepath.Clean(dir))
	}
	applyBaseline(res)
	if b, err := os.ReadFile(filepath.Join(dir, resultdir.ScenarioFile)); err == nil {
		res.ScenarioYAML = string(b)
	}
	return res, nil
}

// loadVariant reads the runs of one variant of result directory dir, and
// fills what res takes from the first run that has it (scenario name,
// fingerprint, proxy configuration).
func loadVariant(res *Result, dir string, ref resultdir.VariantRef) (Variant, error) {
	v := Variant{Label: ref.Label, Slug: ref.Slug}
	runDirs, err := resultdir.RunDirs(dir, ref.Slug)
	if err != nil {
		return v, err
	}
	for _, rd := range runDirs {
		run, err := loadRun(rd)
		if err != nil {
			// One broken run must not hide the others: keep it as a
			// run that does not count, saying why.
			rel := filepath.ToSlash(filepath.Join(ref.Slug, filepath.Base(rd)))
			res.Unreadable = append(res.Unreadable, fmt.Sprintf("%s: %v", rel, err))
			run = Run{Name: filepath.Base(rd), Metrics: Metrics{ByClass: map[string]int{}},
				Reason: fmt.Sprintf("unreadable, skipped: %v", err)}
			run.Meta.Run, _ = resultdir.RunNumber(run.Name)
			run.Meta.Variant = ref.Label
		}
		if v.Label == "" {
			v.Label = run.Meta.Variant
		}
		if res.Scenario == "" {
			res.Scenario = run.Meta.Scenario
		}
		if res.ProxyConfig == "" && run.Meta.ProxyConfig != "" {
			name := filepath.Base(run.Meta.ProxyConfig)
			if b, err := os.ReadFile(filepath.Join(rd, name)); err == nil {
				res.ProxyConfig = string(b)
				res.ProxyConfigFrom = filepath.ToSlash(filepath.Join(ref.Slug, filepath.Base(rd), name))
				res.ProxyConfigSHA256 = run.Meta.ProxyConfigSHA256
			}
		}
		if res.Fingerprint == (record.Fingerprint{}) {
			res.Fingerprint = run.Meta.Fingerprint
		}
		v.Runs = append(v.Runs, run)
	}
	if v.Label == "" {
		v.Label = v.Slug
	}
	return v, nil
}

// loadRun reads one run directory and computes its metrics. A missing
// events.json or records file makes the run invalid rather than an error,
// with a reason that says what is missing; malformed content is an error
// naming the file (and line).
func loadRun(rd string) (Run, error) {
	run := Run{Name: filepath.Base(rd)}
	inputs, takers, err := runInputs(rd)
	if err != nil {
		return run, err
	}
	meta, reqs, err := readRun(rd, takers)
	var missing string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		missing = missingReason(rd, err)
	case err != nil:
		return run, err
	}
	if meta.Run == 0 {
		meta.Run, _ = resultdir.RunNumber(run.Name)
	}
	run.Meta = meta
	run.Metrics = ComputeWith(meta, reqs, inputs)
	run.Valid, run.Reason = RunValidity(meta, &run.Metrics)
	// A run the runner marked invalid keeps its own reason (its records
	// may be missing precisely because it never got to load); otherwise
	// what is missing is the reason, never "marked invalid by the runner"
	// for a runner that never wrote a verdict.
	if missing != "" && (run.Valid || meta.InvalidReason == "") {
		run.Valid = false
		run.Reason = missing
	}
	return run, nil
}

// runInputs makes the installed capabilities' inputs of run directory
// rd (Capability.Input), by capability, and the same in the capabilities'
// order, the order they are offered the records file's lines in.
func runInputs(rd string) (map[Need]RunInput, []RunInput, error) {
	inputs := map[Need]RunInput{}
	var ordered []RunInput
	for _, c := range installed() {
		if c.Input == nil {
			continue
		}
		in, err := c.Input(rd)
		if err != nil {
			return nil, nil, err
		}
		inputs[c.Name] = in
		ordered = append(ordered, in)
	}
	return inputs, ordered, nil
}

// missingReason says which file of run directory rd is missing, and what
// that means: without events.json the run never finished (the harness was
// killed: SIGKILL, power loss, a full disk).
func missingReason(rd string, err error) string {
	base := ""
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		base = filepath.Base(pe.Path)
	}
	switch {
	case base == resultdir.EventsFile:
		what := "no " + resultdir.RecordsFile + " either"
		for _, name := range []string{resultdir.RecordsFile, resultdir.RecordsGzFile} {
			if _, rerr := os.Stat(filepath.Join(rd, name)); rerr == nil {
				what = name + " is there, without a verdict"
				break
			}
		}
		return "missing " + resultdir.EventsFile + ": the run never finished (the harness was killed before it wrote one; " + what + ")"
	case base == resultdir.RecordsFile || base == resultdir.RecordsGzFile:
		return "missing " + resultdir.RecordsFile + "[.gz]: no request records were saved"
	case base != "":
		return "missing file " + base
	}
	return "missing file"
}

// LoadRun reads one run directory: events.json and records.jsonl (or
// records.jsonl.gz). When the Meta has no agent summary and the records hold
// one, the Meta's Agent is set from it. A missing file yields an error
// wrapping fs.ErrNotExist, with whatever was read.
func LoadRun(rd string) (record.Meta, []record.Request, error) {
	return readRun(rd, nil)
}

// readRun is LoadRun that offers each line of the records file to takers
// first (RunInput.Take); a line one of them takes is not the core's.
func readRun(rd string, takers []RunInput) (record.Meta, []record.Request, error) {
	var meta record.Meta
	if err := resultdir.ReadJSON(filepath.Join(rd, resultdir.EventsFile), &meta); err != nil {
		return meta, nil, err
	}
	var reqs []record.Request
	var sum *record.Summary
	err := readRecordsFile(rd, func(r *record.Request) error {
		reqs = append(reqs, *r)
		return nil
	}, func(s *record.Summary) { sum = s }, takers)
	if meta.Agent == nil {
		meta.Agent = sum
	}
	return meta, reqs, err
}

// ReadRunRecords streams run directory rd's records (resultdir.OpenRecords:
// records.jsonl or records.jsonl.gz) through ReadRecords.
func ReadRunRecords(rd string, onReq func(*record.Request) error, onSum func(*record.Summary)) error {
	r, name, err := resultdir.OpenRecords(rd)
	if err != nil {
		return err
	}
	defer r.Close()
	return ReadRecords(r, name, onReq, onSum)
}

// readRecordsFile is ReadRunRecords that offers each line to takers
// first.
func readRecordsFile(rd string, onReq func(*record.Request) error, onSum func(*record.Summary), takers []RunInput) error {
	r, name, err := resultdir.OpenRecords(rd)
	if err != nil {
		return err
	}
	defer r.Close()
	return ReadRecords(r, name, onReq, onSum, takers...)
}

// ReadRunLines streams run directory rd's records file to takers alone:
// a capability's section reads its own lines again this way (the
// WebSocket plots).
func ReadRunLines(rd string, takers ...RunInput) error {
	return readRecordsFile(rd, func(*record.Request) error { return nil }, nil, takers)
}

// ReadRecords streams agent lines from r, each decoded as the runner
// decodes it (record.Line): each request line is passed to onReq (the
// pointer is reused: copy what you keep), a summary line to onSum (may be
// nil), after each line was offered to takers (a capability's input,
// RunInput: a line one takes is not passed on); start, probe and ws lines
// no taker took, blank lines and lines of other types are skipped. A line
// that does not decode (record.Line.Decode) is an error, "name:line: ...".
func ReadRecords(r io.Reader, name string, onReq func(*record.Request) error, onSum func(*record.Summary), takers ...RunInput) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var l record.Line
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			long := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if perr := takeLine(&l, b, onReq, onSum, takers); perr != nil {
			return fmt.Errorf("%s:%d: %w", name, line, perr)
		}
		if err == io.EOF {
			return nil
		}
	}
}

// takeLine decodes one agent line into l and hands it to the first of
// takers that takes it, else on by its type.
func takeLine(l *record.Line, b []byte, onReq func(*record.Request) error, onSum func(*record.Summary), takers []RunInput) error {
	if err := l.Decode(b); err != nil {
		return err
	}
	for _, t := range takers {
		if t.Take(l) {
			return nil
		}
	}
	switch l.Type {
	case record.TypeRequest:
		return onReq(&l.Request)
	case record.TypeSummary:
		if onSum != nil {
			s := l.Summary
			onSum(&s)
		}
	}
	return nil
}
