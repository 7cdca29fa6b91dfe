package loadgen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Err: os.NewSyscallError(op, err)}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		stage  Stage
		err    error
		status int
		want   record.Class
	}{
		{"200 is ok", StageBody, nil, 200, record.ClassOK},
		{"204 is ok", StageBody, nil, 204, record.ClassOK},
		{"301 is http_error", StageBody, nil, 301, record.ClassHTTPError},
		{"502 is http_error", StageBody, nil, 502, record.ClassHTTPError},
		{"503 is http_error", StageBody, nil, 503, record.ClassHTTPError},
		{"dial ECONNREFUSED is refused", StageDial, opErr("connect", syscall.ECONNREFUSED), 0, record.ClassRefused},
		{"dial ENETUNREACH is refused", StageDial, opErr("connect", syscall.ENETUNREACH), 0, record.ClassRefused},
		{"dial no such host is refused", StageDial, &net.OpError{Op: "dial", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}, 0, record.ClassRefused},
		{"dial reset is still refused (nothing sent)", StageDial, opErr("connect", syscall.ECONNRESET), 0, record.ClassRefused},
		// A connect that timed out never reached the server: refused (error text says timeout).
		{"dial timeout is refused", StageDial, &net.OpError{Op: "dial", Err: timeoutErr{}}, 0, record.ClassRefused},
		{"dial context deadline is refused", StageDial, context.DeadlineExceeded, 0, record.ClassRefused},
		// A dial cut off because the agent is stopping: the agent gave up, timeout.
		{"dial cut by stopping is timeout", StageDial, errStopping, 0, record.ClassTimeout},
		{"write EPIPE is reset", StageWrite, opErr("write", syscall.EPIPE), 0, record.ClassReset},
		{"write ECONNRESET is reset", StageWrite, opErr("write", syscall.ECONNRESET), 0, record.ClassReset},
		{"read ECONNRESET is reset", StageRead, opErr("read", syscall.ECONNRESET), 0, record.ClassReset},
		{"body ECONNRESET is reset even after a 200", StageBody, opErr("read", syscall.ECONNRESET), 200, record.ClassReset},
		{"read ECONNABORTED is reset", StageRead, opErr("read", syscall.ECONNABORTED), 0, record.ClassReset},
		{"read EOF is eof", StageRead, io.EOF, 0, record.ClassEOF},
		{"body unexpected EOF is eof", StageBody, io.ErrUnexpectedEOF, 200, record.ClassEOF},
		{"wrapped EOF is eof", StageRead, fmt.Errorf("reading: %w", io.EOF), 0, record.ClassEOF},
		{"malformed response is eof (outcome unknown)", StageRead, errors.New("malformed HTTP response"), 0, record.ClassEOF},
		{"read deadline is timeout", StageRead, &net.OpError{Op: "read", Err: os.ErrDeadlineExceeded}, 0, record.ClassTimeout},
		{"write deadline is timeout", StageWrite, &net.OpError{Op: "write", Err: os.ErrDeadlineExceeded}, 0, record.ClassTimeout},
		{"agent stopping is timeout", StageRead, errStopping, 0, record.ClassTimeout},
	}
	for _, tt := range tests {
		if got := Classify(tt.stage, tt.err, tt.status); got != tt.want {
			t.Errorf("%s: Classify(%d, %v, %d) = %s, want %s", tt.name, tt.stage, tt.err, tt.status, got, tt.want)
		}
	}
}

// The hand-rolled appender yields exactly what encoding/json yields.
func TestAppendRequestJSONMatchesEncodingJSON(t *testing.T) {
	weird := []string{"", "plain", `quo"te\back`, "<script>&amp;</script>", "tab\tnl\ncr\r\b\f\x00\x1f\x7f",
		"ünïcödé ✓ 😀", "bad utf8 \xff\xfe end", "line sep \u2028 para \u2029", "\xed\xa0\x80 surrogate"}
	rng := rand.New(rand.NewPCG(1, 2))
	randStr := func() string {
		if rng.IntN(2) == 0 {
			return weird[rng.IntN(len(weird))]
		}
		b := make([]byte, rng.IntN(20))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return string(b)
	}
	randInt := func() int64 {
		if rng.IntN(3) == 0 {
			return 0
		}
		return rng.Int64() - rng.Int64()
	}
	cases := []record.Request{{}, {Type: "req", ID: "a-1", Method: "GET", Path: "/", Start: 1, End: 2, Class: record.ClassOK}}
	for i := 0; i < 2000; i++ {
		cases = append(cases, record.Request{
			Type: randStr(), ID: randStr(), Method: randStr(), Path: randStr(),
			Worker: int(randInt()), Conn: rng.Uint64() * uint64(rng.IntN(2)), Reused: rng.IntN(2) == 0,
			Scheduled: randInt(), Start: randInt(), Connected: randInt(), Written: randInt(),
			FirstByte: randInt(), End: randInt(), Status: int(randInt()),
			Class: record.Class(randStr()), ConnHeader: randStr(), Upstream: randStr(), Error: randStr(),
			Hostile: randStr(), SentBytes: randInt(),
		})
	}
	for _, r := range cases {
		want, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendRequestJSON(nil, &r); string(got) != string(want) {
			t.Fatalf("record %#v\n got %s\nwant %s", r, got, want)
		}
	}
}

func TestParseMix(t *testing.T) {
	tests := []struct {
		in      string
		want    []MixEntry // nil: error expected
		errPart string
	}{
		{"GET /", []MixEntry{{"GET", "/", 1, 0}}, ""},
		{"GET /slow?ms=300 1; POST /write?ms=300 1 64", []MixEntry{{"GET", "/slow?ms=300", 1, 0}, {"POST", "/write?ms=300", 1, 64}}, ""},
		{" get /a 3 ;; ", []MixEntry{{"GET", "/a", 3, 0}}, ""}, // method upper-cased, empty entries skipped
		{"", nil, "no entries"},
		{"GET", nil, "METHOD PATH"},
		{"GET / x", nil, `weight "x"`},
		{"GET / 0", nil, "weight 0"},
		{"POST / 1 -5", nil, "body bytes -5"},
		{"POST / 1 y", nil, `body bytes "y"`},
		{"GET noslash", nil, "bad path"},
		{"GET / 1 2 3", nil, "METHOD PATH"},
	}
	for _, tt := range tests {
		got, err := ParseMix(tt.in)
		if tt.want == nil {
			if err == nil || !strings.Contains(err.Error(), tt.errPart) {
				t.Errorf("ParseMix(%q) error %v, want one containing %q", tt.in, err, tt.errPart)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("ParseMix(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		cfg   Config
		field string // "" = valid
	}{
		{Config{Target: "127.0.0.1:80"}, ""},
		{Config{}, "Target"},
		{Config{Target: "nohostport"}, "Target"},
		{Config{Target: "h:1", Shape: "zigzag"}, "Shape"},
		{Config{Target: "h:1", Clients: -1}, "Clients"},
		{Config{Target: "h:1", Shape: ShapeOpen}, "Rate"}, // open loop needs a rate
		{Config{Target: "h:1", Shape: ShapeOpen, Rate: 10}, ""},
		{Config{Target: "h:1", Duration: -time.Second}, "Duration"},
		{Config{Target: "h:1", MaxRequests: -3}, "MaxRequests"},
		{Config{Target: "h:1", Timeout: -1}, "Timeout"},
		{Config{Target: "h:1", Think: -1}, "Think"},
		{Config{Target: "h:1", IDPrefix: "a b"}, "IDPrefix"},
		{Config{Target: "h:1", Mix: []MixEntry{{"GET", "/", 0, 0}}}, "Mix[0]"},
	}
	for _, tt := range tests {
		err := tt.cfg.WithDefaults().Validate()
		var ve *ValidationError
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%+v: unexpected error %v", tt.cfg, err)
		case tt.field != "" && (!errors.As(err, &ve) || ve.Field != tt.field):
			t.Errorf("%+v: error %v, want a ValidationError on %s", tt.cfg, err, tt.field)
		}
	}
	d := Config{Target: "h:1"}.WithDefaults()
	if d.Clients != 20 || d.Timeout != 30*time.Second || d.Drain != 10*time.Second || d.MaxRequests != 100000 || d.Shape != ShapeClosed || d.Host != "h:1" || len(d.IDPrefix) != 8 {
		t.Errorf("defaults %+v", d)
	}
	if _, err := Run(context.Background(), Config{Target: "x"}, &collector{}); err == nil || !strings.Contains(err.Error(), `Target="x"`) {
		t.Errorf("Run with a bad target: %v, want an error naming Target and its value", err)
	}
}
