package record

// The hostile load's names (load.kind hostile): its Meta.LoadKind and the
// values of Request.Hostile. Its lines are the load agent's own.

// LoadKindHostile is Meta.LoadKind for a run driven by hostile clients
// (the load agent with -hostile: loadgen.RunHostile); its lines are the
// agent's, every req line with Hostile set.
const LoadKindHostile = "hostile"

// The values of Request.Hostile: the hostile load kinds (loadgen.Hostile,
// loadgen.RunHostile).
const (
	// HostileSlowHeaders trickles the request's headers at a set byte
	// rate.
	HostileSlowHeaders = "slow_headers"
	// HostileSlowBody sends the headers at once and trickles the body at
	// a set byte rate.
	HostileSlowBody = "slow_body"
	// HostileAbort sends the headers and part of the body, then closes the
	// connection (class aborted).
	HostileAbort = "abort"
)
