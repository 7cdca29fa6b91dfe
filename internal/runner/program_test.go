package runner

import (
	"slices"
	"testing"
	"time"
)

// TestReplicaProgram: a cluster scenario's replicas run node
// /app/cluster.js; a user image's target.command replaces its ENTRYPOINT
// and target.args its CMD (a manifest's command and args); every other
// target keeps the image's entrypoint and command.
func TestReplicaProgram(t *testing.T) {
	img := []string{"target.image=my/app:1", "target.protocol.paths=/slow"}
	for _, tt := range []struct {
		scenario      string
		sets          []string
		command, args []string // the variant's target.command and target.args
		entrypoint    []string
		cmd           []string
	}{
		{"cluster-gated", nil, nil, nil, []string{"node", "/app/cluster.js"}, nil},
		{"signal-delivery", nil, nil, nil, nil, nil}, // the Node target's server.js
		{"direct-inflight", nil, nil, nil, nil, nil}, // the Go target
		{"direct-inflight", img, nil, nil, nil, nil}, // the image as it ships
		{"direct-inflight", img, []string{"/srv/app"}, nil, []string{"/srv/app"}, nil},
		{"direct-inflight", img, nil, []string{"--fast", "--port=8080"}, nil, []string{"--fast", "--port=8080"}},
		{"direct-inflight", img, []string{"/bin/sh", "-c"}, []string{"exec /srv/app"}, []string{"/bin/sh", "-c"}, []string{"exec /srv/app"}},
	} {
		f := newFakeEngine(map[string]fakeScript{"replica-0": replica(nil)})
		v := fakeVariant(t, tt.scenario, time.Second, tt.sets...)
		v.Spec.Target.Command, v.Spec.Target.Args = tt.command, tt.args
		x := newFakeRun(t, f, v)
		c, err := f.get(x.obj.replicas[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.spec.Entrypoint; !slices.Equal(got, tt.entrypoint) {
			t.Errorf("%s %q: entrypoint %q, want %q", tt.scenario, tt.sets, got, tt.entrypoint)
		}
		if got := c.spec.Cmd; !slices.Equal(got, tt.cmd) {
			t.Errorf("%s %q: cmd %q, want %q", tt.scenario, tt.sets, got, tt.cmd)
		}
	}
}
