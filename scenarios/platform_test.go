package scenarios

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestPlatformValidation: platform swarm with its swarm block and action
// rollout; each misuse is reported with its field.
func TestPlatformValidation(t *testing.T) {
	const base = "name: t\nplatform: swarm\nreplicas: 2\naction:\n  kind: rollout\n  at: 1s\n"
	tests := []struct {
		name string
		src  string
		want []string // substrings, one per expected error
	}{
		{"defaults", base, nil},
		{"full blocks", base + "  rollout: {parallelism: 2, delay: 1s, order: start-first, grace_period: 5s, stop_signal: int, failure_action: rollback, healthcheck: {check: liveness, interval: 500ms, retries: 2}}\nswarm: {endpoint_mode: vip, constraints: [\"node.role==manager\"], dns_refresh: 2s}\n", nil},
		{"baseline none", "name: t\nplatform: swarm\naction: {kind: none}\n", nil},
		{"rollout on direct", "name: t\naction: {kind: rollout, at: 1s}\n", []string{"action.kind: \"rollout\": rollout needs platform swarm"}},
		{"swarm block on direct", "name: t\nswarm: {endpoint_mode: dnsrr}\n", []string{"swarm: only for platform swarm"}},
		{"signal on swarm", "name: t\nplatform: swarm\naction: {kind: signal}\n", []string{"platform swarm takes rollout or none"}},
		{"unknown platform", "name: t\nplatform: nomad\n", []string{`platform: "nomad": want direct or swarm`}},
		{"bad order", base + "  rollout: {order: sideways}\n", []string{`action.rollout.order: "sideways"`}},
		{"bad check", base + "  rollout: {healthcheck: {check: startup}}\n", []string{`action.rollout.healthcheck.check: "startup"`}},
		{"probe on node", base + "target: {runtime: node}\n", []string{"needs the built-in Go target"}},
		{"bad endpoint", base + "swarm: {endpoint_mode: ipvs}\n", []string{`swarm.endpoint_mode: "ipvs"`}},
		{"bad constraint", base + "swarm: {constraints: [manager]}\n", []string{`swarm.constraints[0]: "manager"`}},
		{"grace_period", base + "target: {grace_period: 5s}\n", []string{"set action.rollout.grace_period"}},
		{"rollout block on roll", "name: t\ntopology: caddy\nreplicas: 2\naction: {kind: roll, rollout: {order: stop-first}}\n", []string{"action.rollout: only for kind rollout"}},
		{"retries", base + "  rollout: {healthcheck: {retries: 0}}\n", []string{"action.rollout.healthcheck.retries"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := errLines(t, tt.src)
			if len(got) != len(tt.want) {
				t.Fatalf("errors %q, want %d matching %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("error %q does not contain %q", got[i], w)
				}
			}
		})
	}
}

// TestRolloutDefaults: a rollout without its block gets every default; a
// partial block keeps the defaults it does not set, the nested health
// check included; the order is a variant axis.
func TestRolloutDefaults(t *testing.T) {
	s, err := parse("t.yaml", []byte("name: t\nplatform: swarm\nreplicas: 2\naction: {kind: rollout, at: 1s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Spec.Action.Rollout(); r == nil || *r != DefaultRollout() {
		t.Errorf("rollout %+v, want the defaults", r)
	}
	if sw := s.Spec.Swarm(); sw == nil || sw.EndpointMode != "dnsrr" || sw.DNSRefresh != Seconds(1) {
		t.Errorf("swarm %+v, want the defaults", sw)
	}
	s, err = parse("t.yaml", []byte("name: t\nplatform: swarm\nreplicas: 2\naction:\n  kind: rollout\n  at: 1s\n"+
		"  rollout: {delay: 2s, healthcheck: {interval: 3s}}\nvariants:\n  action.rollout.order: [start-first, stop-first]\n"))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.Expand([]string{"action.rollout.parallelism=2"})
	if err != nil {
		t.Fatal(err)
	}
	var orders []string
	for _, v := range vs {
		r := v.Spec.Action.Rollout()
		orders = append(orders, r.Order)
		if r.Delay.D() != 2*time.Second || r.Parallelism != 2 || r.Healthcheck.Interval.D() != 3*time.Second ||
			r.Healthcheck.Retries != 3 || r.Healthcheck.Check != CheckReadiness || r.StopGracePeriod != Seconds(10) {
			t.Errorf("%s: rollout %+v", v.Label, *r)
		}
	}
	if !slices.Equal(orders, []string{"start-first", "stop-first"}) {
		t.Errorf("orders %v", orders)
	}
}

// TestRolloutKindOverride: --set action.kind=none on a rollout scenario
// drops its rollout block, as a kind change drops the old kind's fields.
func TestRolloutKindOverride(t *testing.T) {
	s, err := parse("t.yaml", []byte("name: t\nplatform: swarm\nreplicas: 2\naction:\n  kind: rollout\n  at: 1s\n  rollout: {order: start-first}\n"))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.Expand([]string{"action.kind=none"})
	if err != nil {
		t.Fatal(err)
	}
	if r := vs[0].Spec.Action.Rollout(); r != nil {
		t.Errorf("rollout block kept: %+v", *r)
	}
}

// TestSwarmBlockJSON: the swarm block is written right after platform,
// where its field was, before the keys that follow, and read back.
func TestSwarmBlockJSON(t *testing.T) {
	s := Spec{Name: "x", Platform: PlatformSwarm, Expect: []string{"exit_code == 0"}}
	d := DefaultSwarm()
	s.SetBlock(&d)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	j := string(b)
	if p, sw, ex := strings.Index(j, `"platform":"swarm",`), strings.Index(j, `"swarm":{`), strings.Index(j, `"expect":`); p < 0 || sw != p+len(`"platform":"swarm",`) || ex < sw {
		t.Errorf("marshalled: %s", j)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil || back.Swarm() == nil || !reflect.DeepEqual(*back.Swarm(), d) {
		t.Errorf("read back: %v, %+v", err, back.Swarm())
	}
	if again, _ := json.Marshal(back); string(again) != j {
		t.Errorf("round trip:\n%s\n%s", again, j)
	}
}
