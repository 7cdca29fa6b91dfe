package record

import (
	"errors"
	"fmt"
	"slices"
)

// Tally counts what one run's agent or probe output holds: the input of
// CheckAccounting and CheckProbeAccounting. The runner counts the lines as
// they stream in; report counts the records it loaded. The zero Tally is
// empty and ready to use.
type Tally struct {
	// Requests counts request records; ByClass counts them per class,
	// classes that are not Known included.
	Requests int
	ByClass  map[Class]int
	// Probes counts probe result lines.
	Probes int
	// Malformed counts lines that could not be decoded (Line.Decode);
	// LastMalformed is why the last of them was.
	Malformed     int
	LastMalformed string
}

// AddRequest counts one request record of class c.
func (t *Tally) AddRequest(c Class) {
	if t.ByClass == nil {
		t.ByClass = map[Class]int{}
	}
	t.Requests++
	t.ByClass[c]++
}

// AddMalformed counts one line that did not decode, err saying why.
func (t *Tally) AddMalformed(err error) {
	t.Malformed++
	t.LastMalformed = err.Error()
}

// ErrNoSummary is CheckAccounting's problem when the agent's summary line
// is missing: the agent died or was cut off, and nothing vouches for the
// counts.
var ErrNoSummary = errors.New("no agent summary line")

// CheckAccounting is the accounting rule of a load-agent run, the one the
// runner (before it calls a run valid) and report (accounting_ok) both
// apply. It returns every problem, in this order, and nil when the output
// accounts for itself:
//
//  1. every line decoded (no Malformed line);
//  2. every request record has a Known class;
//  3. a summary arrived (else ErrNoSummary, and nothing below is checked);
//  4. every class the summary counts is Known, and no count is negative;
//  5. the summary's started equals the number of request records;
//  6. the summary's by_class adds up to its started;
//  7. for every class, the summary's count equals the records of that
//     class.
//
// Every request the agent starts ends in exactly one class, so nothing
// less adds up; a run that fails any of these had records lost, invented
// or garbled, and is invalid.
func CheckAccounting(sum *Summary, t *Tally) []error {
	errs := checkLines(t)
	for _, c := range sortedClasses(t.ByClass, nil) {
		if !c.Known() {
			errs = append(errs, fmt.Errorf("%d request records of unknown class %q", t.ByClass[c], c))
		}
	}
	if sum == nil {
		return append(errs, ErrNoSummary)
	}
	total := 0
	for _, c := range sortedClasses(sum.ByClass, nil) {
		n := sum.ByClass[c]
		switch {
		case !c.Known():
			errs = append(errs, fmt.Errorf("agent by_class counts %d requests of unknown class %q", n, c))
		case n < 0:
			errs = append(errs, fmt.Errorf("agent by_class counts %d %s requests", n, c))
		}
		total += n
	}
	if sum.Started != t.Requests {
		errs = append(errs, fmt.Errorf("agent started %d, records hold %d", sum.Started, t.Requests))
	}
	if total != sum.Started {
		errs = append(errs, fmt.Errorf("agent by_class sums to %d, agent started %d", total, sum.Started))
	}
	for _, c := range sortedClasses(sum.ByClass, t.ByClass) {
		if sum.ByClass[c] != t.ByClass[c] {
			errs = append(errs, fmt.Errorf("class %s: agent %d, records %d", c, sum.ByClass[c], t.ByClass[c]))
		}
	}
	return errs
}

// CheckProbeAccounting is the accounting rule of a probe run: every line
// decoded, exactly one probe line, and no request records. It returns
// every problem, nil when there is none.
func CheckProbeAccounting(t *Tally) []error {
	errs := checkLines(t)
	switch {
	case t.Probes == 0:
		errs = append(errs, errors.New("no probe line"))
	case t.Probes > 1:
		errs = append(errs, fmt.Errorf("%d probe lines, want exactly one", t.Probes))
	}
	if t.Requests > 0 {
		errs = append(errs, fmt.Errorf("%d request records in a probe run", t.Requests))
	}
	return errs
}

// checkLines is the rule both kinds share: no malformed line.
func checkLines(t *Tally) []error {
	if t.Malformed > 0 {
		return []error{fmt.Errorf("%d malformed output lines (last: %s)", t.Malformed, t.LastMalformed)}
	}
	return nil
}

// sortedClasses returns the keys of a and b, each once, sorted.
func sortedClasses(a, b map[Class]int) []Class {
	var cs []Class
	for c := range a {
		cs = append(cs, c)
	}
	for c := range b {
		if _, ok := a[c]; !ok {
			cs = append(cs, c)
		}
	}
	slices.Sort(cs)
	return cs
}
