package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/agentcmd"
	"github.com/shutdownlab/shutdownlab/record"
)

const dsn = "postgres://postgres@127.0.0.1:1/shutdownlab?sslmode=disable&connect_timeout=1"

// TestConfig: the flags become the producer's configuration, and a bad
// value is an error naming the flag and the value.
func TestConfig(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // "" = valid
	}{
		{"batch", []string{"-count", "6", "-steps", "4", "-step-ms", "250"}, ""},
		{"rate and http", []string{"-count", "6", "-rate", "2", "-http-target", "replica-0:8080", "-http-clients", "3", "-http-ms", "50"}, ""},
		{"no dsn", []string{"-dsn", "", "-count", "1"}, `invalid -dsn="": want a PostgreSQL URL`},
		{"no count", []string{}, `invalid -count="0": must be > 0`},
		{"too many", []string{"-count", "10001"}, `invalid -count="10001": must be 1..10000`},
		{"negative rate", []string{"-count", "2", "-rate", "-1"}, `invalid -rate="-1": must be >= 0`},
		{"inserts past the duration", []string{"-count", "21", "-rate", "2", "-duration", "10s"}, `invalid -rate="2": 21 jobs take 10s to insert, not within -duration 10s`},
		{"steps", []string{"-count", "1", "-steps", "0"}, `invalid -steps="0": must be > 0`},
		{"step ms", []string{"-count", "1", "-step-ms", "-1"}, `invalid -step-ms="-1": must be >= 0`},
		{"http without a target", []string{"-count", "1", "-http-clients", "2"}, `invalid -http-target="": want host:port`},
		{"negative clients", []string{"-count", "1", "-http-clients", "-2"}, `invalid -http-clients="-2"`},
		{"quiet", []string{"-count", "1", "-step-ms", "250", "-quiet", "2s"}, ""},
		{"quiet within a step", []string{"-count", "1", "-step-ms", "1000", "-quiet", "1s"}, `invalid -quiet="1s": must exceed a step (-step-ms 1000)`},
		{"negative quiet", []string{"-count", "1", "-quiet", "-1s"}, `invalid -quiet="-1s": must be >= 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := agentcmd.New("jobagent", "JOBAGENT_TEST", "usage", io.Discard)
			f := defineFlags(c)
			if err := c.Flags.Parse(append([]string{"-dsn", dsn}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			cfg, err := f.config(c)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if tt.want == "" && (cfg.HTTP == nil) != !strings.Contains(strings.Join(tt.args, " "), "-http-clients") {
				t.Errorf("HTTP load %+v", cfg.HTTP)
			}
		})
	}
}

// TestHTTPConfig: the /db load is a closed loop on GET /db?ms=N with a
// one-period stagger and the agent's bounds.
func TestHTTPConfig(t *testing.T) {
	c := agentcmd.New("jobagent", "JOBAGENT_TEST", "usage", io.Discard)
	f := defineFlags(c)
	c.Flags.Parse([]string{"-dsn", dsn, "-count", "2", "-http-target", "replica-0:8080", "-http-clients", "3",
		"-http-ms", "50", "-duration", "7s", "-drain", "4s", "-id-prefix", "r1"})
	cfg, err := f.config(c)
	if err != nil {
		t.Fatal(err)
	}
	h := cfg.HTTP
	if h.Target != "replica-0:8080" || h.Clients != 3 || h.Duration != 7*time.Second || h.Drain != 4*time.Second ||
		h.Stagger != 50*time.Millisecond || len(h.Mix) != 1 || h.Mix[0].Path != "/db?ms=50" || h.IDPrefix != "r1" {
		t.Errorf("HTTP load %+v", h)
	}
}

// TestInsertSchedule: job i goes in i/rate after load start; the last of
// count bounds the inserts.
func TestInsertSchedule(t *testing.T) {
	for _, tt := range []struct {
		count int
		rate  float64
		span  time.Duration
	}{{1, 4, 0}, {6, 0, 0}, {6, 2, 2500 * time.Millisecond}, {5, 4, time.Second}} {
		if got := insertSpan(tt.count, tt.rate); got != tt.span {
			t.Errorf("count %d rate %v: span %s, want %s", tt.count, tt.rate, got, tt.span)
		}
	}
	if got := insertAt(3, 2); got != 1500*time.Millisecond {
		t.Errorf("insertAt(3, 2) = %s", got)
	}
}

// TestDatabaseUnreachable: a database that never answers ends the agent
// with exit code 4 and a jobs line, the last, saying why.
func TestDatabaseUnreachable(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-dsn", dsn, "-count", "2", "-connect-timeout", "300ms"}, &stdout, &stderr, make(chan os.Signal))
	if code != exitDatabase {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitDatabase, stderr.String())
	}
	lines := readLines(t, &stdout)
	if len(lines) != 1 {
		t.Fatalf("lines %q, want the jobs line alone", lines)
	}
	var l record.JobsLine
	if err := json.Unmarshal([]byte(lines[0]), &l); err != nil || l.Type != record.TypeJobs ||
		!strings.Contains(l.Error, "database not reachable within 300ms") || l.IDs == nil || l.Settled {
		t.Errorf("jobs line %q (%v)", lines[0], err)
	}
}

func readLines(t *testing.T, r io.Reader) []string {
	t.Helper()
	var lines []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}
