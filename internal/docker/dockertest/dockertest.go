// Package dockertest holds helpers for tests that need the real Docker
// daemon. Tests fail loudly when Docker is unreachable, unless
// SHUTDOWNLAB_SKIP_DOCKER=1 is set, which skips them explicitly.
package dockertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/docker"
	"github.com/shutdownlab/shutdownlab/internal/images"
)

// SkipEnv is the environment variable that, set to "1", skips Docker tests
// instead of failing them.
const SkipEnv = "SHUTDOWNLAB_SKIP_DOCKER"

// HelloPackage is the test program's package path relative to the module
// root (a package main under testdata, so ./... ignores it).
const HelloPackage = "./internal/images/testdata/hello"

// HelloImageName is the repository of the hello test image.
const HelloImageName = "shutdownlab/test-hello"

// RequireDocker returns an Engine whose session id is unique to this test.
// It skips the test when SHUTDOWNLAB_SKIP_DOCKER=1 and fails it (Fatalf)
// when the daemon is unreachable. At cleanup, after the test's own cleanups,
// it reports any container or network of the session still present as a
// test error (a leak), removes them and closes the engine.
func RequireDocker(t testing.TB) *docker.Engine {
	t.Helper()
	if os.Getenv(SkipEnv) == "1" {
		t.Skipf("%s=1: skipping test that needs Docker", SkipEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	eng, err := docker.New(ctx, docker.WithSession(SessionID(t)))
	if err != nil {
		t.Fatalf("this test needs a Docker daemon (set %s=1 to skip): %v", SkipEnv, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		session := map[string]string{docker.LabelSession: eng.Session()}
		left, err := eng.Leftovers(ctx, session)
		if err != nil {
			t.Errorf("listing leftovers: %v", err)
		}
		if !left.Empty() {
			t.Errorf("test leaked Docker objects of session %s: containers %v, networks %v",
				eng.Session(), left.Containers, left.Networks)
		}
		if _, err := eng.Sweep(ctx, session); err != nil {
			t.Errorf("sweeping session %s: %v", eng.Session(), err)
		}
		_ = eng.Close()
	})
	return eng
}

var unsafeChars = regexp.MustCompile(`[^a-zA-Z0-9_.-]+`)

// SessionID returns a fresh id for the test: "t-<test name>-<random>",
// usable in container and network names.
func SessionID(t testing.TB) string {
	name := strings.Trim(unsafeChars.ReplaceAllString(t.Name(), "-"), "-")
	if len(name) > 40 {
		name = name[:40]
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return strings.ToLower("t-" + name + "-" + hex.EncodeToString(b))
}

// PinTestcontainersEnv makes testcontainers-go usable on an offline machine
// that has a /.dockerenv file: it disables Ryuk (its image cannot be
// pulled) unless TESTCONTAINERS_RYUK_DISABLED is already set, and, when the
// daemon is a local unix socket (DOCKER_HOST unset or unix://), pins
// TESTCONTAINERS_HOST_OVERRIDE to 127.0.0.1 so testcontainers never uses
// the default gateway as the Docker host. Call it (from TestMain) before
// any testcontainers call: testcontainers reads its configuration once.
func PinTestcontainersEnv() {
	if _, ok := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !ok {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if h := os.Getenv("DOCKER_HOST"); h == "" || strings.HasPrefix(h, "unix://") {
		_ = os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
}

var helloMu sync.Mutex

// HelloImage builds (or reuses) the hello test image and returns its
// reference. See internal/images/testdata/hello for its behaviour.
func HelloImage(t testing.TB, eng *docker.Engine) string {
	t.Helper()
	helloMu.Lock()
	defer helloMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ref, _, err := images.Build(ctx, eng, images.Spec{Name: HelloImageName, Package: HelloPackage})
	if err != nil {
		t.Fatalf("building hello image: %v", err)
	}
	return ref
}
