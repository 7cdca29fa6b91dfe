package runner

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/events"
	"github.com/moby/moby/client"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// fakeLister plays the engine for the overlap watch: lists[i] is what the
// i-th container list returns (running containers); started are container
// start events sent after the first list.
type fakeLister struct {
	lists   [][]container.Summary
	listErr error
	started []map[string]string // event attributes (labels)
	calls   int
	sent    chan struct{} // closed when every event was taken
}

func (f *fakeLister) ContainerList(context.Context, client.ContainerListOptions) (client.ContainerListResult, error) {
	i := f.calls
	f.calls++
	if f.listErr != nil {
		return client.ContainerListResult{}, f.listErr
	}
	if i < len(f.lists) {
		return client.ContainerListResult{Items: f.lists[i]}, nil
	}
	return client.ContainerListResult{}, nil
}

func (f *fakeLister) Events(ctx context.Context, _ client.EventsListOptions) client.EventsResult {
	msgs := make(chan events.Message)
	errs := make(chan error, 1)
	go func() {
		defer close(f.sent)
		for _, attrs := range f.started {
			select {
			case msgs <- events.Message{Type: events.ContainerEventType, Action: events.ActionStart, Actor: events.Actor{Attributes: attrs}}:
			case <-ctx.Done():
				return
			}
		}
	}()
	return client.EventsResult{Messages: msgs, Err: errs}
}

func labelsOf(session string) map[string]string {
	return map[string]string{docker.LabelManaged: "1", docker.LabelSession: session}
}

func running(session string) container.Summary {
	return container.Summary{State: container.StateRunning, Labels: labelsOf(session)}
}

// TestOverlapWatch: other sessions' running containers at the start, at
// the end, or starting in between are reported (sorted, once each); our
// own session and unmanaged containers are not; a failed list is reported
// as a problem, never as an overlap.
func TestOverlapWatch(t *testing.T) {
	const mine = "mine00000000"
	tests := []struct {
		name     string
		f        *fakeLister
		want     []string
		problems int
	}{
		{"alone", &fakeLister{lists: [][]container.Summary{{running(mine)}, {running(mine)}}}, nil, 0},
		{"other at start", &fakeLister{lists: [][]container.Summary{{running(mine), running("b")}}}, []string{"b"}, 0},
		{"other at end", &fakeLister{lists: [][]container.Summary{{}, {running("c"), running("a")}}}, []string{"a", "c"}, 0},
		{"other started and ended in between", &fakeLister{started: []map[string]string{labelsOf("d"), labelsOf(mine)}}, []string{"d"}, 0},
		{"same session twice", &fakeLister{lists: [][]container.Summary{{running("e")}, {running("e")}}, started: []map[string]string{labelsOf("e")}}, []string{"e"}, 0},
		{"unmanaged or unlabelled", &fakeLister{lists: [][]container.Summary{{
			{State: container.StateRunning, Labels: map[string]string{docker.LabelSession: "x"}},
			{State: container.StateRunning, Labels: map[string]string{docker.LabelManaged: "1"}},
		}}}, nil, 0},
		{"exited containers are not load", &fakeLister{lists: [][]container.Summary{{{State: container.StateExited, Labels: labelsOf("f")}}}}, nil, 0},
		{"list fails", &fakeLister{listErr: errors.New("daemon gone")}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.sent = make(chan struct{})
			w := startOverlapWatch(context.Background(), tt.f, mine)
			select { // let the events through before the end of the "run"
			case <-tt.f.sent:
			case <-time.After(time.Minute):
				t.Fatal("events not taken")
			}
			got, problems := w.stop(context.Background())
			if !slices.Equal(got, tt.want) {
				t.Errorf("sessions %q, want %q", got, tt.want)
			}
			if len(problems) != tt.problems {
				t.Errorf("problems %q, want %d", problems, tt.problems)
			}
		})
	}
}
