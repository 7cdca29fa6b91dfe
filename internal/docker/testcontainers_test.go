package docker_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/shutdownlab/shutdownlab/internal/docker"
)

// TestTestcontainersSmoke proves testcontainers-go works with the settings
// TestMain pinned (no Ryuk, host 127.0.0.1) against the locally built,
// never pulled, hello image.
func TestTestcontainersSmoke(t *testing.T) {
	eng, img, ctx := setup(t)
	if h := os.Getenv("DOCKER_HOST"); h == "" || strings.HasPrefix(h, "unix://") {
		if got := os.Getenv("TESTCONTAINERS_HOST_OVERRIDE"); got != "127.0.0.1" {
			t.Fatalf("TESTCONTAINERS_HOST_OVERRIDE = %q, want 127.0.0.1", got)
		}
	}
	t0 := time.Now()
	c, err := testcontainers.Run(ctx, img,
		testcontainers.WithName(eng.Session()+"-tc"),
		testcontainers.WithLabels(eng.Labels(nil)),
		testcontainers.WithWaitStrategy(wait.ForLog(`"event":"up"`).WithStartupTimeout(30*time.Second)),
	)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatalf("testcontainers.Run: %v", err)
	}
	t.Logf("testcontainers: running and logged up after %s", time.Since(t0).Round(time.Millisecond))
	host, err := c.Host(ctx)
	if err != nil {
		t.Fatalf("Host: %v", err)
	}
	if host != "127.0.0.1" && host != "localhost" {
		t.Errorf("testcontainers Docker host = %q, want loopback", host)
	}
	st, err := eng.Inspect(ctx, c.GetContainerID())
	if err != nil || !st.Running || st.Labels[docker.LabelSession] != eng.Session() {
		t.Errorf("Inspect of the testcontainers container: %+v err=%v", st, err)
	}
	timeout := 5 * time.Second
	if err := c.Terminate(ctx, testcontainers.StopTimeout(timeout)); err != nil {
		t.Fatalf("Terminate: %v", err)
	}
}
