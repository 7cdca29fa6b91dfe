package targetapp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Defaults and limits of the query parameters.
const (
	defaultWorkMs  = 300
	defaultSteps   = 10
	defaultStepMs  = 300
	maxSteps       = 100000
	maxBodyDrained = 1 << 20
)

// Handler returns the target protocol's routes. Only /slow, /write and
// /db are counted as in flight.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.HandleFunc("GET /livez", a.livez)
	mux.HandleFunc("GET /slow", a.counted(a.slow))
	mux.HandleFunc("POST /write", a.counted(a.write))
	mux.HandleFunc("GET /job", a.startJobHandler)
	mux.HandleFunc("GET /events", a.events)
	mux.HandleFunc("GET /db", a.counted(a.db))
	return mux
}

// counted wraps a work handler with the in-flight counter.
func (a *App) counted(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.inflight++
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			a.inflight--
			a.mu.Unlock()
			a.poke()
		}()
		h(w, r)
	}
}

func (a *App) readyz(w http.ResponseWriter, _ *http.Request) {
	ready := a.Ready()
	status := http.StatusOK
	if !ready {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, map[string]any{"ready": ready, "inflight": a.Inflight()})
}

func (a *App) livez(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"live": true})
}

func (a *App) slow(w http.ResponseWriter, r *http.Request) {
	ms, ok := queryInt(w, r, "ms", defaultWorkMs, 0, maxMs)
	if !ok {
		return
	}
	if !sleepCtx(r.Context(), time.Duration(ms)*time.Millisecond) {
		return // the client went away: nobody to answer
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

func (a *App) write(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("X-Request-Id")
	if id == "" {
		writeError(w, http.StatusBadRequest, "missing X-Request-Id header")
		return
	}
	ms, ok := queryInt(w, r, "ms", defaultWorkMs, 0, maxMs)
	if !ok {
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBodyDrained))
	if err := a.appendLedger(id); err != nil {
		writeError(w, http.StatusInternalServerError, "ledger: "+err.Error())
		return
	}
	if !sleepCtx(r.Context(), time.Duration(ms)*time.Millisecond) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// appendLedger appends id and a newline to the ledger and fsyncs it.
func (a *App) appendLedger(id string) error {
	a.ledgerMu.Lock()
	defer a.ledgerMu.Unlock()
	if _, err := a.ledger.WriteString(id + "\n"); err != nil {
		return err
	}
	return a.ledger.Sync()
}

func (a *App) startJobHandler(w http.ResponseWriter, r *http.Request) {
	steps, ok := queryInt(w, r, "steps", defaultSteps, 1, maxSteps)
	if !ok {
		return
	}
	stepMs, ok := queryInt(w, r, "step_ms", defaultStepMs, 0, maxMs)
	if !ok {
		return
	}
	switch err := a.StartJob(steps, time.Duration(stepMs)*time.Millisecond); err {
	case nil:
		writeJSON(w, http.StatusAccepted, map[string]any{"accepted": true, "steps": steps, "step_ms": stepMs})
	case ErrJobRunning:
		writeError(w, http.StatusConflict, err.Error())
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// queryInt reads an integer query parameter in min..max, def when absent.
// On a bad value it answers 400 naming the parameter and the value.
func queryInt(w http.ResponseWriter, r *http.Request, name string, def, min, max int) (int, bool) {
	q := r.URL.Query()
	if !q.Has(name) {
		return def, true
	}
	v := q.Get(name)
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > max {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("bad %s=%q: must be an integer in %d..%d", name, v, min, max))
		return 0, false
	}
	return n, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": msg})
}
