package targetapp

import (
	"fmt"
	"net/http"
)

// db is GET /db?ms=N: SELECT pg_sleep(N/1000.0) on the worker's pool
// (counted in flight like /slow). 200 {"ok":true}; 500 {"error":...}
// when the query fails (a closed pool, a connection closed under it);
// 404 without WORKER=on. A client that went away gets no answer (its
// request context cancels the query).
func (a *App) db(w http.ResponseWriter, r *http.Request) {
	if a.worker == nil {
		writeError(w, http.StatusNotFound, "/db needs WORKER=on: this target has no database")
		return
	}
	ms, ok := queryInt(w, r, "ms", defaultWorkMs, 0, maxMs)
	if !ok {
		return
	}
	_, err := a.worker.pool.Exec(r.Context(), `SELECT pg_sleep($1::float8 / 1000)`, ms)
	if r.Context().Err() != nil {
		return // the client went away: nobody to answer
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("db: %v", err))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}
