package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// ActionTerminate is the kubelet's termination of a pod, emulated on one
// replica (docs/kubernetes.md): at the action's moment the pod is deleted
// (the proxy deregistration, proxy.deregister_after, is timed from then),
// the pre-stop hook runs, the stop signal follows it, and SIGKILL comes
// when the grace period has run out (internal/kube.Schedule). Platform
// direct.
const ActionTerminate ActionKind = record.ActionTerminate

// DefaultTerminationGrace is terminationGracePeriodSeconds' default.
const DefaultTerminationGrace = 30 * time.Second

// MaxTerminationGrace bounds action.terminate.grace_period (a run waits
// for it).
const MaxTerminationGrace = 10 * time.Minute

// Terminate configures kind terminate as a pod spec would.
type Terminate struct {
	// Grace is the grace period, terminationGracePeriodSeconds (key
	// grace_period; grace is its deprecated name and its JSON name), whole
	// seconds (default 30s).
	Grace Duration `yaml:"grace_period" json:"grace"`
	// PreStop is the container's pre-stop hook (nil: none).
	PreStop *PreStop `yaml:"pre_stop" json:"pre_stop,omitempty"`
	// StopSignal is lifecycle.stopSignal; empty sends the image's
	// STOPSIGNAL (SIGTERM when it has none), as the runtime does.
	StopSignal string `yaml:"stop_signal" json:"stop_signal,omitempty"`
	// NewPod, when set, starts a new pod in this one's place, as a rolling
	// update does (newpod.go); nil: the pod is only deleted.
	NewPod *NewPod `yaml:"new_pod" json:"new_pod,omitempty"`
}

func init() {
	registerActionBlock(ActionTerminate, actionBlockDef{key: "terminate", newBlock: func() ActionBlock { return new(Terminate) },
		normalize: normalizeTerminate, validate: validateTerminate})
}

func (*Terminate) actionKind() ActionKind { return ActionTerminate }

// Terminate returns the action's terminate block (action.terminate), nil
// without one.
func (a Action) Terminate() *Terminate { return blockOf[*Terminate](a.blocks, ActionTerminate) }

// PreStop is a pre-stop hook: exactly one of its handlers.
type PreStop struct {
	// Sleep pauses (the sleep action of Kubernetes 1.30+).
	Sleep *Duration `yaml:"sleep" json:"sleep,omitempty"`
	// Exec runs a command inside the container.
	Exec []string `yaml:"exec" json:"exec,omitempty"`
	// HTTPGet GETs a path on a port of the container, from the run's
	// network.
	HTTPGet *HTTPGetHook `yaml:"http_get" json:"http_get,omitempty"`
}

// HTTPGetHook is a pre-stop httpGet handler.
type HTTPGetHook struct {
	Path string `yaml:"path" json:"path"`
	// Port is the container port (default: the target's port).
	Port int `yaml:"port" json:"port,omitempty"`
}

// DefaultTerminate is action.terminate when kind terminate has none.
func DefaultTerminate() Terminate { return Terminate{Grace: Duration(DefaultTerminationGrace)} }

// normalizeTerminate gives kind terminate its block and canonical signal.
func normalizeTerminate(s *Spec) {
	a := &s.Action
	if a.Kind == ActionTerminate && a.Terminate() == nil {
		d := DefaultTerminate()
		a.SetBlock(&d)
	}
	if t := a.Terminate(); t != nil && t.StopSignal != "" {
		if sig, ok := normalizeSignal(t.StopSignal); ok {
			t.StopSignal = sig
		}
	}
}

// validateTerminate checks action.terminate under kind terminate.
func validateTerminate(s *Spec, fail FailFunc) {
	t := s.Action.Terminate()
	checkSeconds(fail, "action.terminate.grace_period", t.Grace)
	if t.Grace.D() > MaxTerminationGrace {
		fail("action.terminate.grace_period", t.Grace.String(), "must be at most "+MaxTerminationGrace.String())
	}
	if t.StopSignal != "" && !isSignal(t.StopSignal) {
		fail("action.terminate.stop_signal", t.StopSignal, "unknown signal (want one of "+strings.Join(Signals, ", ")+")")
	}
	if p := t.PreStop; p != nil {
		validatePreStop(p, s.Target.Protocol.Port, fail)
	}
	if n := t.NewPod; n != nil && s.Platform != PlatformKubernetes {
		validateNewPod(s, n, fail)
	}
	if min := t.Grace.D() + 2*time.Second; s.Observe.Window.D() < min {
		fail("observe.window", s.Observe.Window.String(), fmt.Sprintf("must cover action.terminate.grace_period and the kubelet's 2 s floor (at least %s)", Duration(min)))
	}
}

// validatePreStop checks that a hook has exactly one handler, and its
// settings.
func validatePreStop(p *PreStop, port int, fail FailFunc) {
	n := 0
	if p.Sleep != nil {
		n++
		if *p.Sleep < 0 {
			fail("action.terminate.pre_stop.sleep", p.Sleep.String(), "must not be negative")
		}
	}
	if p.Exec != nil {
		n++
		if len(p.Exec) == 0 || p.Exec[0] == "" {
			fail("action.terminate.pre_stop.exec", "", "needs a command")
		}
	}
	if h := p.HTTPGet; h != nil {
		n++
		if !strings.HasPrefix(h.Path, "/") {
			fail("action.terminate.pre_stop.http_get.path", h.Path, "must start with /")
		}
		if h.Port < 0 || h.Port > 65535 {
			fail("action.terminate.pre_stop.http_get.port", fmt.Sprint(h.Port), "must be a port (0: the target's)")
		}
	}
	if n != 1 {
		fail("action.terminate.pre_stop", "", fmt.Sprintf("needs exactly one of sleep, exec, http_get (has %d)", n))
	}
}

func isSignal(name string) bool {
	_, ok := normalizeSignal(name)
	return ok
}

// UnmarshalYAML decodes a terminate block onto its defaults, so a block
// that leaves out grace_period keeps Kubernetes' 30 s.
func (t *Terminate) UnmarshalYAML(unmarshal func(any) error) error {
	type plain Terminate
	*t = DefaultTerminate()
	return unmarshal((*plain)(t))
}
