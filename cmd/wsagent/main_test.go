package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/shutdownlab/shutdownlab/internal/agentcmd"
	"github.com/shutdownlab/shutdownlab/record"
)

// streamServer serves /readyz and a /events stream of one event every
// 10 ms until the client goes.
func streamServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/readyz", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx := c.CloseRead(r.Context())
		for seq := int64(1); ; seq++ {
			f, _ := json.Marshal(record.WSFrame{Type: record.WSFrameEvent, ID: fmt.Sprint("e", seq), Seq: seq})
			if c.Write(ctx, websocket.MessageText, f) != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// A SIGTERM mid-run ends the load: the start line comes first, every
// client prints its totals, and the lines account for themselves.
func TestWSAgentStopsOnSignal(t *testing.T) {
	srv := streamServer(t)
	sig := make(chan os.Signal, 1)
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"-target", srv.Listener.Addr().String(), "-clients", "5", "-duration", "20s",
			"-ramp", "100ms", "-wait-ready", "/readyz"}, &stdout, &stderr, sig)
	}()
	time.Sleep(500 * time.Millisecond)
	sig <- syscall.SIGTERM
	select {
	case code := <-done:
		if code != agentcmd.ExitOK {
			t.Fatalf("exit %d; stderr:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("wsagent did not stop after SIGTERM; stderr:\n%s", stderr.String())
	}
	var tally record.WSTally
	starts := 0
	sc := bufio.NewScanner(&stdout)
	for i := 0; sc.Scan(); i++ {
		var l struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("line %d %q: %v", i, sc.Text(), err)
		}
		if l.Type == record.TypeStart {
			starts++
		}
		addLine(t, &tally, l.Type, sc.Bytes())
	}
	if starts != 1 {
		t.Fatalf("%d start lines, want 1 (printed once every client made its first attempt)", starts)
	}
	if errs := record.CheckWSAccounting(&tally); errs != nil {
		t.Fatalf("accounting: %v", errs)
	}
	tot := tally.Totals()
	if tot.Clients != 5 || tot.Opened < 5 || tot.Events.Received == 0 {
		t.Fatalf("totals %+v: want 5 clients, each opened, events received", tot)
	}
	if tot.ClosesByCode["1000"] != tot.Closes {
		t.Fatalf("closes by code %v: every close should be the client's 1000", tot.ClosesByCode)
	}
}

func addLine(t *testing.T, tally *record.WSTally, typ string, b []byte) {
	t.Helper()
	var err error
	switch typ {
	case record.TypeWSAttempt:
		var a record.WSAttempt
		err = json.Unmarshal(b, &a)
		tally.AddAttempt(a)
	case record.TypeWSClose:
		var c record.WSClose
		err = json.Unmarshal(b, &c)
		tally.AddClose(c)
	case record.TypeWSClient:
		var c record.WSClient
		err = json.Unmarshal(b, &c)
		tally.AddClient(c)
	}
	if err != nil {
		t.Fatalf("%s line %s: %v", typ, b, err)
	}
}

// Bad flags exit 2 naming the flag.
func TestWSAgentBadFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{}, "-target"},
		{[]string{"-target", "h:1", "-clients", "0"}, "-clients"},
		{[]string{"-target", "h:1", "-policy", "sometimes"}, "policy"},
		{[]string{"-target", "h:1", "-path", "events"}, "-path"},
		{[]string{"-target", "h:1", "-policy", "exponential", "-base", "2s", "-cap", "1s"}, "cap"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr, make(chan os.Signal))
		if code != agentcmd.ExitUsage || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", tt.args, code, stderr.String(), tt.want)
		}
	}
}

// More clients than the open-file limit allows are refused up front,
// naming the limit, instead of failing as if the server refused them.
func TestWSAgentNoFileLimit(t *testing.T) {
	lim, err := checkNoFile(1)
	if err != nil || lim == 0 {
		t.Skipf("no open-file limit to test against (%d, %v)", lim, err)
	}
	_, err = checkNoFile(int(lim))
	if err == nil || !strings.Contains(err.Error(), "raise the container's limit") {
		t.Fatalf("checkNoFile(%d): %v, want a refusal naming the limit", lim, err)
	}
}
