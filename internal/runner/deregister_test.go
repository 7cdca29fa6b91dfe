package runner

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// stubAdmin is a proxyAdmin that answers Exec with a fixed result and
// remembers the command.
type stubAdmin struct {
	code   int
	stderr string
	err    error
	cmd    []string
	id     string
	execs  int
}

func (s *stubAdmin) CopyFileTo(context.Context, string, string, []byte) error { return nil }

func (s *stubAdmin) Exec(_ context.Context, id string, cmd []string, _ time.Duration) (int, []byte, []byte, error) {
	s.id, s.cmd = id, cmd
	s.execs++
	return s.code, nil, []byte(s.stderr), s.err
}

// TestDeregister: a deregistration records when it was sent and, only
// when Caddy's CLI exited 0, when it was acknowledged; every failure is
// an error in the record, never an acknowledgement.
func TestDeregister(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name      string
		adm       *stubAdmin
		ctx       context.Context
		at        time.Time
		wantAcked bool
		wantErr   string
		wantExec  bool
	}{
		{"acknowledged", &stubAdmin{}, context.Background(), time.Now(), true, "", true},
		{"cli fails", &stubAdmin{code: 1, stderr: "starting\nError: sending configuration to instance: connection refused\n"}, context.Background(), time.Now(), false,
			"caddy reload exited 1: Error: sending configuration to instance: connection refused", true},
		{"exec fails", &stubAdmin{err: errors.New("exec: not done within 10s")}, context.Background(), time.Now(), false, "not done within 10s", true},
		{"cancelled before its time", &stubAdmin{}, cancelled, time.Now().Add(time.Hour), false, "context canceled", false},
		{"engine without exec", nil, context.Background(), time.Now(), false, "cannot exec", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var adm proxyAdmin
			if tt.adm != nil {
				adm = tt.adm
			}
			res := deregister(tt.ctx, adm, "proxy-id", tt.at, record.Deregistration{Upstream: "replica-0:8080", AfterMs: 0})
			if got := res.AckedNs != 0; got != tt.wantAcked {
				t.Errorf("acked=%v, want %v (%+v)", got, tt.wantAcked, res)
			}
			if tt.wantAcked && (res.SentNs == 0 || res.AckedNs < res.SentNs) {
				t.Errorf("sent %d acked %d: want 0 < sent <= acked", res.SentNs, res.AckedNs)
			}
			if !strings.Contains(res.Error, tt.wantErr) || (tt.wantErr == "") != (res.Error == "") {
				t.Errorf("error %q, want %q", res.Error, tt.wantErr)
			}
			if ran := tt.adm != nil && tt.adm.cmd != nil; ran != tt.wantExec {
				t.Errorf("exec ran=%v, want %v", ran, tt.wantExec)
			}
			if tt.wantExec && (tt.adm.id != "proxy-id" || !slices.Equal(tt.adm.cmd, deregisterCmd)) {
				t.Errorf("exec %s %q, want proxy-id %q", tt.adm.id, tt.adm.cmd, deregisterCmd)
			}
		})
	}
}
