package docker

// OwnerLabels returns the owner labels of o (LabelOwnerHost, LabelOwnerPID,
// LabelOwnerStart), for objects this package does not create itself (a
// swarm lease, see package swarm).
func (o Owner) Labels() map[string]string { return o.labels() }

// OwnerFromLabels reads the owner labels; ok is false when l has none.
func OwnerFromLabels(l map[string]string) (Owner, bool) { return ownerFromLabels(l) }

// OwnerGone decides, as CleanOrphans does, whether the process of owner o
// is gone as seen from self: true when o is on self's host and its pid is
// not alive or now belongs to a process with another start time; false
// when it is alive, on another host, or cannot be checked. The reason says
// which.
func OwnerGone(o, self Owner) (bool, string) { return orphaned(o, true, self, localProcs) }
