package record

// Request is the record of one request: written by the load agent as one JSON
// object per line. Timestamps are wall-clock Unix nanoseconds taken in the
// agent's container (same kernel clock as the host); zero means "did not
// happen" (for example Written is 0 when the dial failed).
type Request struct {
	// Type is always TypeRequest ("req"); it tells request lines from
	// other agent lines.
	Type string `json:"type"`
	// ID is the unique X-Request-Id the request carried.
	ID string `json:"id"`
	// Method and Path are what was requested (path includes the query).
	Method string `json:"method"`
	Path   string `json:"path"`
	// Worker is the index of the client (closed loop) or worker (open loop)
	// that issued the request.
	Worker int `json:"worker"`
	// Conn identifies the connection used (unique within one agent run);
	// 0 when no connection was obtained.
	Conn uint64 `json:"conn"`
	// Reused is true when the request went out on a keep-alive connection
	// that had already carried at least one request.
	Reused bool `json:"reused"`

	// Scheduled is when an open-loop schedule intended the request to start
	// (0 for closed loop); Start - Scheduled is the start lateness.
	Scheduled int64 `json:"scheduled_ns,omitempty"`
	// Start is when the client began working on the request.
	Start int64 `json:"start_ns"`
	// Connected is when a new connection finished dialing (0 when reused or
	// when the dial failed).
	Connected int64 `json:"connected_ns,omitempty"`
	// Written is when the last byte of the request was written.
	Written int64 `json:"written_ns,omitempty"`
	// FirstByte is when the first response byte arrived.
	FirstByte int64 `json:"first_byte_ns,omitempty"`
	// End is when the request reached its outcome.
	End int64 `json:"end_ns"`

	// Status is the HTTP status code, 0 when no response was read.
	Status int `json:"status,omitempty"`
	// Class is the outcome class.
	Class Class `json:"class"`
	// ConnHeader is the response's Connection header ("close",
	// "keep-alive" or empty).
	ConnHeader string `json:"conn_header,omitempty"`
	// Upstream is the response's UpstreamHeader: which replica a proxy
	// forwarded the request to (topology caddy); empty without it.
	Upstream string `json:"upstream,omitempty"`
	// Hostile names the hostile load kind that made this request
	// (HostileSlowHeaders, HostileSlowBody, HostileAbort); empty for an
	// ordinary request. Its latency includes the client's own slowness.
	Hostile string `json:"hostile,omitempty"`
	// SentBytes is how many bytes of the request a hostile client had
	// written when the request reached its outcome (0 when none, or for
	// an ordinary request, which writes it whole).
	SentBytes int64 `json:"sent_bytes,omitempty"`
	// Error is the error text for failed requests.
	Error string `json:"error,omitempty"`
}

// UpstreamHeader is the response header in which the proxy of topology
// caddy names the upstream (host:port) that served a request, so requests
// can be counted per replica.
const UpstreamHeader = "X-Shutdownlab-Upstream"

// LatencyNs is End - Start, the latency the client saw.
func (r *Request) LatencyNs() int64 { return r.End - r.Start }

// Summary is the agent's last line: how many requests it started and how they
// ended. Started must equal the sum of ByClass.
type Summary struct {
	// Type is always TypeSummary ("summary").
	Type string `json:"type"`
	// Started counts every request the agent accounted for, including
	// not_sent slots.
	Started int `json:"started"`
	// ByClass counts requests per outcome class.
	ByClass map[Class]int `json:"by_class"`
	// LoadStart and LoadEnd bound the load (Unix ns).
	LoadStart int64 `json:"load_start_ns"`
	LoadEnd   int64 `json:"load_end_ns"`
	// StoppedBy says why the load ended: StoppedByDuration, StoppedByCount
	// or StoppedBySignal.
	StoppedBy string `json:"stopped_by"`
}

// Start is the agent's first line, printed just before the first request;
// the runner times the action from LoadStart.
type Start struct {
	// Type is always TypeStart ("start").
	Type string `json:"type"`
	// LoadStart is when load began (Unix ns).
	LoadStart int64 `json:"load_start_ns"`
}
