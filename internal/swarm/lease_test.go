package swarm

import (
	"maps"
	"testing"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

var (
	ownerA = docker.Owner{Host: "h", PID: 10, Start: "100"}
	ownerB = docker.Owner{Host: "h", PID: 20, Start: "200"}
	ownerX = docker.Owner{Host: "h", PID: 30, Start: "300"} // gone
)

func goneX(o docker.Owner) bool { return o == ownerX }

func TestOwnerRoundTrip(t *testing.T) {
	for _, o := range []docker.Owner{ownerA, {Host: "x.y", PID: 1, Start: ""}} {
		got, ok := decodeOwner(encodeOwner(o))
		if !ok || got != o {
			t.Errorf("decode(encode(%v)) = %v, %v", o, got, ok)
		}
	}
	for _, bad := range []string{"", "h", "h|x|1", "|1|2", "h|0|1"} {
		if _, ok := decodeOwner(bad); ok {
			t.Errorf("decodeOwner(%q) ok", bad)
		}
	}
}

func TestRelease(t *testing.T) {
	lease := func(s string, o docker.Owner) (string, string) { return LabelLeasePrefix + s, encodeOwner(o) }
	mk := func(created bool, holders map[string]docker.Owner) map[string]string {
		l := map[string]string{"user.label": "kept"}
		if created {
			l[LabelCreated] = encodeOwner(ownerA)
		}
		for s, o := range holders {
			k, v := lease(s, o)
			l[k] = v
		}
		return l
	}
	for _, tc := range []struct {
		name      string
		labels    map[string]string
		mayLeave  bool
		wantLeave bool
		wantLeft  []string // sessions whose lease remains
	}{
		{"created, last one out leaves", mk(true, map[string]docker.Owner{"a": ownerA}), true, true, nil},
		{"created, another live lease stays", mk(true, map[string]docker.Owner{"a": ownerA, "b": ownerB}), true, false, []string{"b"}},
		{"created, stale lease dropped, leaves", mk(true, map[string]docker.Owner{"a": ownerA, "x": ownerX}), true, true, nil},
		{"created, a foreign service keeps it", mk(true, map[string]docker.Owner{"a": ownerA}), false, false, nil},
		{"not created: never left", mk(false, map[string]docker.Owner{"a": ownerA}), true, false, nil},
		{"b releases an A-created swarm last", mk(true, map[string]docker.Owner{"b": ownerB}), true, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			session := "a"
			if _, ok := tc.labels[LabelLeasePrefix+"a"]; !ok {
				session = "b"
			}
			in := maps.Clone(tc.labels)
			out, leave := released(tc.labels, session, ownerA, goneX, tc.mayLeave)
			if !maps.Equal(in, tc.labels) {
				t.Errorf("input labels modified")
			}
			if leave != tc.wantLeave {
				t.Errorf("leave = %v, want %v", leave, tc.wantLeave)
			}
			st := readState(out, goneX)
			if len(st.Leases) != len(tc.wantLeft) {
				t.Errorf("leases left %v, want %v", st.Leases, tc.wantLeft)
			}
			for _, s := range tc.wantLeft {
				if _, ok := st.Leases[s]; !ok {
					t.Errorf("lease of %s dropped", s)
				}
			}
			if (st.Leaving != "") != tc.wantLeave {
				t.Errorf("leaving mark %q with leave %v", st.Leaving, leave)
			}
			if out["user.label"] != "kept" {
				t.Errorf("a foreign label was lost")
			}
		})
	}
}

func TestWithLeaseAndLeaving(t *testing.T) {
	l := withLease(map[string]string{LabelLeaving: "x " + encodeOwner(ownerX)}, "a", ownerA, true)
	st := readState(l, goneX)
	if !st.Created || st.Leases["a"] != encodeOwner(ownerA) || st.Leaving != "" {
		t.Errorf("withLease: %+v", st)
	}
	st = readState(map[string]string{LabelLeaving: "x " + encodeOwner(ownerX)}, goneX)
	if st.Leaving != "x" || !st.LeaverGone {
		t.Errorf("gone leaver: %+v", st)
	}
	st = readState(map[string]string{LabelLeaving: "b " + encodeOwner(ownerB)}, goneX)
	if st.Leaving != "b" || st.LeaverGone {
		t.Errorf("live leaver: %+v", st)
	}
}
