package runner

import (
	"context"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/record"
	"github.com/shutdownlab/shutdownlab/scenarios"
)

// actionDef is one action kind as the runner performs it on the Docker
// platform (the Swarm platform's rollout is its own act, platform_swarm.go).
type actionDef struct {
	// deliver sends a stop of this kind to replica c: it fills rec (the
	// send and return times, the kind's own fields) and returns a channel
	// when the stop outlives the call (docker stop, a termination's
	// SIGKILL schedule), nil otherwise. nil for a kind that stops
	// nothing itself (roll stops through action.roll.via).
	deliver func(x *run, ctx context.Context, c *docker.Container, rec *record.Action) (chan stopResult, error)
	// at performs the kind at action.at, up to the end of the acted-on
	// replica's observation window. nil: fire, that is, deliver the stop
	// and observe the window.
	at func(x *run, ctx context.Context, loadStart time.Time) error
}

// actions are the action kinds the Docker platform performs, keyed by
// scenarios.ActionKind, each registered by its own file (action_signal.go,
// action_stop.go, roll.go, terminate.go): a new kind adds no line here.
// ActionNone does nothing and has no entry; the scenarios' table of action
// kinds (scenarios/actionkind.go) says which platform takes which kind,
// and TestActionsCoverDirectKinds that every kind of platform direct but
// none has an entry.
var actions = newRegistry[scenarios.ActionKind, actionDef]("action kind")
