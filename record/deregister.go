package record

// Deregistration is the runner removing the acted-on replica from the
// proxy's upstreams (scenario proxy.deregister_after): the model of an
// orchestrator's endpoint propagation, timed from the roll's stop signal.
type Deregistration struct {
	// Upstream is the dial address removed, e.g. "replica-0:8080".
	Upstream string `json:"upstream"`
	// AfterMs is the planned delay after the stop signal was sent
	// (Action.SentNs).
	AfterMs float64 `json:"after_ms"`
	// Via says how the request reached the proxy's admin API, e.g.
	// "docker exec <proxy> caddy reload (POST /load on localhost:2019)".
	Via string `json:"via"`
	// SentNs is the wall-clock time just before the runner sent the
	// request; AckedNs just after the proxy acknowledged it (its admin API
	// answered success, i.e. the new upstream list is loaded). Zero
	// AckedNs: never acknowledged (Error says why).
	SentNs  int64 `json:"sent_ns"`
	AckedNs int64 `json:"acked_ns,omitempty"`
	// Error is why the deregistration failed, if it did.
	Error string `json:"error,omitempty"`
}
