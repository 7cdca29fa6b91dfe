package scenarios

import (
	"slices"
	"testing"
)

// TestNewFieldErrors checks load.kind, target.entrypoint, target.image
// and target.protocol errors (the probe's own: capabilities/probe): each with file:line, field and value.
func TestNewFieldErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"bad entrypoint", "name: t\ntarget:\n  entrypoint: bash\n", []string{
			`t.yaml:3: target.entrypoint: "bash": want exec or shell`,
		}},
		{"bad load kind", "name: t\nload:\n  kind: agnet\n", []string{
			`t.yaml:3: load.kind: "agnet": want agent, hostile, jobs, probe, ws`,
		}},
		{"protocol without image: paths not checked", "name: t\ntarget:\n  protocol: {paths: [/x]}\n", nil},
		{"image refuses an undeclared path", "name: t\ntarget:\n  image: my/app:1\n  protocol:\n    paths: [/slow]\nload:\n  mix:\n    - {path: \"/slow?ms=5\"}\n    - {method: POST, path: \"/write?ms=5\"}\n", []string{
			`t.yaml:9: load.mix[1].path: "/write?ms=5": image my/app:1 does not declare path "/write" (declared: ready path /readyz, target.protocol.paths [/slow]); if it serves /write: --set target.protocol.paths=/slow,/write (or target.protocol.paths in a scenario file)`,
		}},
		{"image refuses the job and runtime", "name: t\ntarget:\n  image: my/app:1\n  runtime: node\n  protocol: {paths: [/slow]}\nload:\n  job: {steps: 1, step_ms: 1}\n", []string{
			`t.yaml:4: target.runtime: "node": only for the built-in target (target.image is set)`,
			`t.yaml:7: load.job: "/job": image my/app:1 does not declare path "/job" (declared: ready path /readyz, target.protocol.paths [/slow]); if it serves /job: --set target.protocol.paths=/slow,/job (or target.protocol.paths in a scenario file)`,
		}},
		{"bad protocol values", "name: t\ntarget:\n  image: x\n  protocol:\n    port: 0\n    ready_path: \"\"\n    paths: [slow]\n", []string{
			`t.yaml:5: target.protocol.port: "0": must be 1..65535`,
			"t.yaml:6: target.protocol.ready_path: required: the load waits for GET ready_path to answer 200 before it starts",
			`t.yaml:7: target.protocol.paths[0]: "slow": must start with "/" and hold no query, spaces or control characters`,
			// the default mix (GET /slow?ms=300) is checked too; a default has no line
			`t.yaml: load.mix[0].path: "/slow?ms=300": image x does not declare path "/slow" (declared: ready path , target.protocol.paths [slow]); if it serves /slow: --set target.protocol.paths=slow,/slow (or target.protocol.paths in a scenario file)`,
		}},
		{"command and args only with an image", "name: t\ntarget:\n  command: [/app]\n  args: [--fast]\n", []string{
			"t.yaml:3: target.command: only with target.image (the built-in targets start their own program)",
			"t.yaml:4: target.args: only with target.image (the built-in targets start their own program)",
		}},
		{"empty command", "name: t\ntarget:\n  image: my/app:1\n  command: []\n  protocol: {paths: [/slow]}\n", []string{
			`t.yaml:4: target.command: must name the program to run (leave it out to keep the image's ENTRYPOINT)`,
		}},
		{"command, args and a port behind caddy", "name: t\ntopology: caddy\nreplicas: 2\ntarget:\n  image: my/app:1\n  command: [/srv/app]\n  args: [--listen, \":9000\"]\n  protocol: {port: 9000, paths: [/slow]}\n", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := errLines(t, tc.src)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got:\n%s\nwant:\n%s", join(got), join(tc.want))
			}
		})
	}
}

func join(s []string) string {
	out := ""
	for _, l := range s {
		out += l + "\n"
	}
	return out
}

// TestNewFieldDefaults checks the target's defaults and that its new
// fields can be set and varied like the others (the probe block's:
// capabilities/probe).
func TestNewFieldDefaults(t *testing.T) {
	sc, err := parse("t.yaml", []byte("name: t\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Spec
	if s.Target.Entrypoint != EntrypointExec || s.Target.Image != "" || s.Target.Protocol.Port != 8080 ||
		s.Target.Protocol.ReadyPath != "/readyz" {
		t.Errorf("target defaults %+v", s.Target)
	}
	vs, err := sc.Expand([]string{"target.entrypoint=shell", "target.image=my/app:2", "target.protocol.paths=/slow"})
	if err != nil {
		t.Fatal(err)
	}
	if s := vs[0].Spec; s.Target.Entrypoint != EntrypointShell || s.Target.Image != "my/app:2" {
		t.Errorf("after --set: %+v", s.Target)
	}
	_, err = sc.Expand([]string{"target.entrypoint=sh"})
	if want := `--set: target.entrypoint: "sh": want exec or shell`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
