package record_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/shutdownlab/shutdownlab/record"
)

// The Node targets speak the same lifecycle protocol as the Go target:
// every event name server.js or cluster.js can log is one record defines,
// and together they log every one record defines. The names are found by
// scanning the sources: each log({ event: ... }) call names its event as a
// string literal or as the variable ev, whose every assignment is a
// literal.
func TestNodeTargetEventNames(t *testing.T) {
	var all []string
	for _, file := range []string{"server.js", "cluster.js"} {
		names := nodeEventNames(t, file)
		for _, n := range names {
			if !slices.Contains(record.Events, n) {
				t.Errorf("%s logs event %q, which record does not define (record/wire.go)", file, n)
			}
		}
		all = append(all, names...)
	}
	for _, n := range record.Events {
		if !slices.Contains(all, n) {
			t.Errorf("record defines event %q, which neither server.js nor cluster.js logs", n)
		}
	}
}

// nodeEventNames returns the event names targetapp/node/FILE logs.
func nodeEventNames(t *testing.T, file string) []string {
	t.Helper()
	src, err := os.ReadFile("../targetapp/node/" + file)
	if err != nil {
		t.Fatal(err)
	}
	calls := regexp.MustCompile(`\blog\(\{\s*event:\s*([^,}\s]+)`).FindAllSubmatch(src, -1)
	if len(calls) == 0 {
		t.Fatalf("%s: no log({ event: ... }) call found; the scan is out of date", file)
	}
	lit := regexp.MustCompile(`^'([^']*)'$`)
	var names []string
	for _, c := range calls {
		switch arg := string(c[1]); {
		case lit.MatchString(arg):
			names = append(names, lit.FindStringSubmatch(arg)[1])
		case arg == "ev":
			for _, a := range regexp.MustCompile(`\bev\s*=\s*([^;\n]+)`).FindAllSubmatch(src, -1) {
				m := lit.FindSubmatch(a[1])
				if m == nil {
					t.Fatalf("%s: ev = %s: not a string literal; the scan cannot check it", file, a[1])
				}
				names = append(names, string(m[1]))
			}
		default:
			t.Fatalf("%s: log({ event: %s }): not a literal or ev; the scan cannot check it", file, arg)
		}
	}
	return names
}

// Events holds each name once.
func TestEventsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range record.Events {
		if seen[n] {
			t.Errorf("record.Events lists %q twice", n)
		}
		seen[n] = true
	}
}
