package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/swarm"
)

// fakeSwarm is an in-memory orchestrator for unit tests: a service's
// tasks are containers of the fake engine (role "task-<slot>-<gen>"), an
// update replaces every task at once (old ones get SIGTERM), and the
// service converges as soon as it is asked.
type fakeSwarm struct {
	eng *fakeEngine
	// fail injects errors by method name ("CreateService", "Update").
	fail map[string]error
	// node is what NodeName reports.
	node string

	mu       sync.Mutex
	calls    []string
	service  swarm.ServiceConfig
	gen      uint64
	tasks    []swarm.Task
	released bool
}

var _ orchestrator = (*fakeSwarm)(nil)

func newFakeSwarm(eng *fakeEngine) *fakeSwarm {
	return &fakeSwarm{eng: eng, fail: map[string]error{}, node: "fake-node"}
}

func (s *fakeSwarm) call(what string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, what)
	return s.fail[what]
}

// Calls returns the calls so far.
func (s *fakeSwarm) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

func (s *fakeSwarm) Acquire(context.Context) (swarmLease, bool, error) {
	if err := s.call("Acquire"); err != nil {
		return nil, false, err
	}
	return fakeLease{s}, true, nil
}

// fakeLease releases the fake swarm, leaving it (it created it).
type fakeLease struct{ s *fakeSwarm }

func (l fakeLease) Release(context.Context) (bool, error) {
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	l.s.calls = append(l.s.calls, "Release")
	l.s.released = true
	return true, nil
}

func (s *fakeSwarm) NodeName(context.Context) (string, error) { return s.node, s.call("NodeName") }

func (s *fakeSwarm) CreateOverlay(_ context.Context, name string, _ map[string]string) (string, error) {
	return "net-" + name, s.call("CreateOverlay")
}

func (s *fakeSwarm) CreateService(ctx context.Context, c swarm.ServiceConfig) (string, error) {
	if err := s.call("CreateService"); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.service = c
	s.mu.Unlock()
	return "svc-1", s.startTasks(ctx, 0)
}

// startTasks starts one task container per replica of generation gen.
func (s *fakeSwarm) startTasks(ctx context.Context, gen uint64) error {
	s.mu.Lock()
	c := s.service
	s.mu.Unlock()
	for slot := 1; slot <= int(c.Replicas); slot++ {
		name := fmt.Sprintf("%s-task-%d-%d", c.Name[:len(c.Name)-len("-target")], slot, gen)
		ctr, err := s.eng.Run(ctx, docker.ContainerSpec{Name: name, Image: c.Image, Env: c.Env, Labels: c.Labels})
		if err != nil {
			return err
		}
		s.mu.Lock()
		s.tasks = append(s.tasks, swarm.Task{ID: fmt.Sprintf("t%d-%d", slot, gen), Slot: slot, DesiredState: "running", State: "running",
			CreatedAt: time.Now(), StatusAt: time.Now(), ContainerID: ctr.ID, ForceUpdate: gen,
			Addrs: map[string]string{"net-" + c.Network: fmt.Sprintf("10.0.0.%d", slot)}})
		s.mu.Unlock()
	}
	return nil
}

func (s *fakeSwarm) WatchService(context.Context, string) (serviceWatch, error) {
	return fakeWatch{}, s.call("WatchService")
}

// fakeWatch saw no event.
type fakeWatch struct{}

func (fakeWatch) Stop(time.Duration) ([]swarm.Event, error) { return nil, nil }

func (s *fakeSwarm) WaitConverged(_ context.Context, _ string, _ int, gen uint64, _, _ time.Duration) (swarm.Convergence, error) {
	if err := s.call("WaitConverged"); err != nil {
		return swarm.Convergence{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	state := ""
	if gen > 0 {
		state = "completed"
	}
	return swarm.Convergence{Converged: true, UpdateState: state, AtNs: time.Now().UnixNano(), Tasks: append([]swarm.Task(nil), s.tasks...)}, nil
}

// Update stops every running task (SIGTERM) and starts the next
// generation.
func (s *fakeSwarm) Update(ctx context.Context, _ string, _ swarm.Rollout) (swarm.RolloutStart, error) {
	sent := time.Now().UnixNano()
	if err := s.call("Update"); err != nil {
		return swarm.RolloutStart{SentNs: sent, ReturnedNs: time.Now().UnixNano()}, err
	}
	s.mu.Lock()
	s.gen++
	gen := s.gen
	var old []string
	for i := range s.tasks {
		if s.tasks[i].DesiredState == "running" {
			s.tasks[i].DesiredState, s.tasks[i].State = "shutdown", "shutdown"
			old = append(old, s.tasks[i].ContainerID)
		}
	}
	s.mu.Unlock()
	for _, id := range old {
		_ = s.eng.Kill(ctx, id, "SIGTERM")
	}
	return swarm.RolloutStart{SentNs: sent, ReturnedNs: time.Now().UnixNano(), ForceUpdate: gen}, s.startTasks(ctx, gen)
}

func (s *fakeSwarm) Tasks(context.Context, string) ([]swarm.Task, error) {
	if err := s.call("Tasks"); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]swarm.Task(nil), s.tasks...), nil
}

func (s *fakeSwarm) RemoveService(context.Context, string, time.Duration) error {
	return s.call("RemoveService")
}

func (s *fakeSwarm) RemoveNetwork(context.Context, string, time.Duration) error {
	return s.call("RemoveNetwork")
}
