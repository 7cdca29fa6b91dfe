package gate

import (
	"errors"
	"strings"

	"github.com/shutdownlab/shutdownlab/report"
)

// Check reports the first unknown metric name as an *Error at its column,
// with a "did you mean" suggestion when a known name is within edit
// distance 2. Known names are those report.Lookup knows: report.Defs() and
// "by_class.KEY" where KEY is a class key the report can produce: ok,
// refused, reset, eof, timeout, not_sent, unknown, or http_NNN (three
// digits).
func (e *Expectation) Check() error {
	for _, r := range e.refs {
		if _, ok := report.Lookup(r.name); ok {
			continue
		}
		what := "unknown metric"
		if r.reference {
			what = "unknown reference metric"
		}
		msg := what + " " + quote(r.name)
		if r.name == "" {
			msg = "expected a metric name after " + quote(r.text)
		} else if s := suggest(r.name); s != "" {
			if r.reference {
				s = ReferencePrefix + s
			}
			msg += " (did you mean " + quote(s) + "?)"
		}
		return errAt(e.Source, r.p, "%s", msg)
	}
	return nil
}

// ParseAll parses and checks each source (the --expect flags in order),
// returning every error joined.
func ParseAll(srcs []string) ([]*Expectation, error) {
	var out []*Expectation
	var errs []error
	for _, s := range srcs {
		e, err := Parse(s)
		if err == nil {
			err = e.Check()
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, e)
	}
	return out, errors.Join(errs...)
}

func quote(s string) string { return `"` + s + `"` }

// suggest returns the known name closest to name within edit distance 2
// (the first in catalog order on a tie), else the first known name that
// extends name by "_..." ("p99" → "p99_ms"), or "".
func suggest(name string) string {
	var cands []string
	for _, d := range report.Defs() {
		cands = append(cands, d.Name)
	}
	for _, k := range report.ByClassKeys() {
		cands = append(cands, report.ByClassPrefix+k)
	}
	cands = append(cands, report.ByClassPrefix+"http_502", report.ByClassPrefix+"http_503")
	best, bestD := "", 3
	for _, c := range cands {
		if d := levenshtein(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		// "p99" for "p99_ms": a name cut short at a word boundary.
		for _, c := range cands {
			if strings.HasPrefix(c, name+"_") {
				return c
			}
		}
	}
	return best
}

// levenshtein is the edit distance between a and b, in bytes.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
