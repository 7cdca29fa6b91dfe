package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Stock-server fixtures: servers nobody here wrote (Debian's nginx, Apache
// httpd, HAProxy, lighttpd, and Caddy), each assembled offline into an image
// through one build path (StockFixture) from a declarative table entry
// (StockServer). Every fixture:
//
//   - listens on StockPort (8080) and answers GET /readyz and GET /livez
//     with 200, and GET /slow (any query string) with 200 "ok" after about
//     StockSlowDelay, sending no byte before the delay ends (so a request
//     dropped mid-wait has received nothing);
//   - runs the server in the foreground as PID 1 (or as the server's own
//     container documentation says), with stock software only;
//   - sets no STOPSIGNAL, so `docker stop` sends SIGTERM, as when the Debian
//     package is put in an image as-is;
//   - records, in the table, the server's documented stop semantics with
//     the URL of the author's documentation.

// Labels set on every stock-server fixture image.
const (
	// LabelStockServer is the fixture's table name ("apache").
	LabelStockServer = "shutdownlab.stock_server"
	// LabelStockVersion is the server's version as the program reports it
	// ("Apache/2.4.71 (Debian)").
	LabelStockVersion = "shutdownlab.stock_version"
	// LabelStockBase says where the server came from
	// ("host:/usr/sbin/apache2", or the project image it is layered on).
	LabelStockBase = "shutdownlab.stock_base"
	// LabelStockGraceful and LabelStockFast are the documented graceful and
	// fast stop signals ("SIGWINCH", "SIGTERM").
	LabelStockGraceful = "shutdownlab.stock_graceful_signal"
	LabelStockFast     = "shutdownlab.stock_fast_signal"
)

// The protocol every stock fixture speaks.
const (
	// StockPort is the TCP port every fixture listens on (the harness's
	// default target.protocol.port).
	StockPort = 8080
	// StockReadyPath and StockLivePath answer 200 while the server runs.
	StockReadyPath = "/readyz"
	StockLivePath  = "/livez"
	// StockSlowPath answers 200 "ok" after StockSlowDelay.
	StockSlowPath = "/slow"
	// StockSlowDelay is the wait before /slow answers (nginx alone also
	// honours ?ms=N; the others ignore the query string).
	StockSlowDelay = 300 * time.Millisecond
	// StockGraceSeconds bounds every fixture's graceful stop (each in its
	// own directive: worker_shutdown_timeout, GracefulShutdownTimeout,
	// hard-stop-after, server.graceful-shutdown-timeout, grace_period).
	StockGraceSeconds = 10
)

// SignalAction is what a server documents a signal to do.
type SignalAction string

// The actions a stock server's documentation gives a signal.
const (
	// ActionGraceful stops accepting, finishes in-flight requests, exits.
	ActionGraceful SignalAction = "graceful-stop"
	// ActionFast exits at once, dropping in-flight requests.
	ActionFast SignalAction = "fast-stop"
	// ActionReload re-reads the configuration without a stop.
	ActionReload SignalAction = "reload"
	// ActionRestart kills the workers (dropping their requests) and starts
	// new ones; the parent stays.
	ActionRestart SignalAction = "restart"
	// ActionGracefulRestart lets workers finish, then replaces them.
	ActionGracefulRestart SignalAction = "graceful-restart"
	// ActionStopWorkers lets the workers finish and exit while the parent
	// stays, serving nothing.
	ActionStopWorkers SignalAction = "stop-workers"
	// ActionReopen re-opens log files.
	ActionReopen SignalAction = "reopen-logs"
	// ActionIgnored is documented as ignored.
	ActionIgnored SignalAction = "ignored"
)

// SignalRule is one documented signal of a stock server.
type SignalRule struct {
	// Signal is the signal's name ("SIGQUIT").
	Signal string
	// Action is what the documentation says it does.
	Action SignalAction
	// Doc is that rule in a sentence, as documented.
	Doc string
}

// StopSemantics is a stock server's documented stop behaviour.
type StopSemantics struct {
	// Graceful is the documented graceful-stop signal, Fast the documented
	// fast (immediate) one; both are among Signals.
	Graceful string
	Fast     string
	// Signals are every signal the documentation describes.
	Signals []SignalRule
	// GracefulBound is the fixture's bound on a graceful stop (directive
	// and value) and the server's default for it.
	GracefulBound string
	// GracefulExit and FastExit are the exit codes after each stop with
	// requests in flight, FastExitIdle after a fast stop with no connection
	// open (they differ for lighttpd); ExitDoc says whether the
	// documentation gives them or they were measured here.
	GracefulExit int
	FastExit     int
	FastExitIdle int
	ExitDoc      string
	// DocURL is the author's documentation of these signals.
	DocURL string
	// OfficialStopSignal is the STOPSIGNAL of the server's official Docker
	// image ("" when it sets none), for comparison with a recommendation.
	OfficialStopSignal string
}

// VersionQuery says how a server's version is read on this host.
type VersionQuery struct {
	// Cmd runs on the host (bounded to 20 s); its combined output must
	// match Pattern, whose first group is the version.
	Cmd     []string
	Pattern string
	// GoModule, instead of Cmd, reads the version of this module from the
	// embedded cmd/caddy go.mod (the Caddy binary is compiled from it).
	GoModule string
}

// StockServer is one stock-server fixture: everything that goes into its
// image and what its documentation says its stop signals do.
type StockServer struct {
	// Name is the table key ("nginx", "apache", "haproxy", "lighttpd",
	// "caddy"); the image is StockImagePrefix+Name.
	Name string
	// Product is the server's name as its authors spell it.
	Product string
	// Packages are the Debian packages the files come from and Install
	// the exact command that installs them (for Caddy, which has no Debian
	// package, the command that builds its base image).
	Packages []string
	Install  string
	// Binaries are host programs and modules copied with their ldd
	// libraries; a missing one is an error naming Install.
	Binaries []HostBinary
	// Files are the configuration, scripts, static files and directories.
	Files []File
	// Entrypoint runs the server in the foreground as PID 1; Env is set in
	// the image.
	Entrypoint []string
	Env        []string
	// Foreground says how the server runs in the container and why.
	Foreground string
	// Base is "" (FROM scratch) or CaddyImageName: the project's Caddy
	// image, built or reused first, which the fixture is layered on.
	Base string
	// Version reads the server's version on this host.
	Version VersionQuery
	// Stop is the documented stop behaviour.
	Stop StopSemantics
}

// StockImagePrefix is the repository prefix of the stock fixtures
// ("shutdownlab/fixture-nginx").
const StockImagePrefix = "shutdownlab/fixture-"

// ImageName is the fixture's image repository.
func (s StockServer) ImageName() string { return StockImagePrefix + s.Name }

// Rule returns the documented rule for signal sig ("SIGTERM" or "TERM").
func (s StockServer) Rule(sig string) (SignalRule, bool) {
	sig = "SIG" + strings.TrimPrefix(strings.ToUpper(sig), "SIG")
	for _, r := range s.Stop.Signals {
		if r.Signal == sig {
			return r, true
		}
	}
	return SignalRule{}, false
}

// DockerStop is what `docker stop` does to the fixture: it sends SIGTERM
// (no STOPSIGNAL is set), so the documented rule for SIGTERM.
func (s StockServer) DockerStop() SignalRule {
	r, _ := s.Rule("SIGTERM")
	return r
}

// StockServers lists the stock-server fixtures, by name.
func StockServers() []StockServer {
	out := []StockServer{apacheServer(), caddyServer(), haproxyServer(), lighttpdServer(), nginxServer()}
	slices.SortFunc(out, func(a, b StockServer) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupStockServer returns the table entry called name.
func LookupStockServer(name string) (StockServer, error) {
	var names []string
	for _, s := range StockServers() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return StockServer{}, fmt.Errorf("no stock server %q (have: %s)", name, strings.Join(names, ", "))
}

// CheckHost reports whether this host has every file the fixture is made
// of; the error names the apt-get command that installs them.
func (s StockServer) CheckHost() error {
	for _, b := range s.Binaries {
		if _, err := os.Stat(b.Host); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s fixture: %s not found on this host; install %s with: %s",
					s.Name, b.Host, strings.Join(s.Packages, " "), s.Install)
			}
			return fmt.Errorf("%s fixture: %w", s.Name, err)
		}
	}
	return nil
}

// HostVersion reads the server's version on this host (Version).
func (s StockServer) HostVersion(ctx context.Context) (string, error) {
	if s.Version.GoModule != "" {
		m, err := CaddyModule()
		if err != nil {
			return "", fmt.Errorf("%s fixture: %w", s.Name, err)
		}
		return GoModVersion(m["go.mod"], s.Version.GoModule)
	}
	vctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(vctx, s.Version.Cmd[0], s.Version.Cmd[1:]...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s fixture: %s: %w: %s", s.Name, strings.Join(s.Version.Cmd, " "), err, strings.TrimSpace(string(out)))
	}
	m := regexp.MustCompile(s.Version.Pattern).FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("%s fixture: %s printed %q, which does not match %q",
			s.Name, strings.Join(s.Version.Cmd, " "), out, s.Version.Pattern)
	}
	return string(m[1]), nil
}

// GoModVersion returns the version go.mod requires of module path.
func GoModVersion(gomod []byte, path string) (string, error) {
	re := regexp.MustCompile(`(?m)^\s*(?:require\s+)?` + regexp.QuoteMeta(path) + `\s+(v\S+)`)
	m := re.FindSubmatch(gomod)
	if m == nil {
		return "", fmt.Errorf("go.mod requires no %s", path)
	}
	return string(m[1]), nil
}

// StockFixtureImage describes s's image: its binaries with their ldd
// libraries, its files, no STOPSIGNAL, the labels (LabelStock*), on base
// ("" = scratch; the Caddy image's reference for Base CaddyImageName).
// version is the server's version on this host.
func StockFixtureImage(ctx context.Context, s StockServer, base string) (spec HostImage, version string, err error) {
	if err := s.CheckHost(); err != nil {
		return HostImage{}, "", err
	}
	if s.Base != "" && base == "" {
		return HostImage{}, "", fmt.Errorf("%s fixture: needs the %s image as its base", s.Name, s.Base)
	}
	if version, err = s.HostVersion(ctx); err != nil {
		return HostImage{}, "", err
	}
	origin := base
	if len(s.Binaries) > 0 {
		origin = "host:" + s.Binaries[0].Host
	}
	return HostImage{
		Name:       s.ImageName(),
		Base:       base,
		Binaries:   s.Binaries,
		Files:      s.Files,
		Entrypoint: s.Entrypoint,
		Env:        s.Env,
		Labels: map[string]string{
			LabelStockServer: s.Name, LabelStockVersion: version, LabelStockBase: origin,
			LabelStockGraceful: s.Stop.Graceful, LabelStockFast: s.Stop.Fast,
		},
	}, version, nil
}

// StockFixture builds (or reuses, by content hash) the fixture called name
// and returns its image reference and table entry. The Caddy fixture first
// builds or reuses the project's Caddy image (a cold build compiles Caddy:
// minutes). log receives progress lines (nil: silent).
func StockFixture(ctx context.Context, eng Engine, name string, log io.Writer) (ref string, server StockServer, err error) {
	server, err = LookupStockServer(name)
	if err != nil {
		return "", StockServer{}, err
	}
	base := ""
	if server.Base == CaddyImageName {
		spec, err := CaddySpec("")
		if err != nil {
			return "", server, fmt.Errorf("%s fixture: %w", name, err)
		}
		spec.Log = log
		if base, _, err = Build(ctx, eng, spec); err != nil {
			return "", server, fmt.Errorf("%s fixture: caddy image: %w", name, err)
		}
	}
	spec, version, err := StockFixtureImage(ctx, server, base)
	if err != nil {
		return "", server, err
	}
	if ref, _, err = BuildHostImage(ctx, eng, spec, log); err != nil {
		return "", server, err
	}
	logf(log, "stock fixture %s: %s %s (graceful %s, fast %s)\n", name, server.Product, version, server.Stop.Graceful, server.Stop.Fast)
	return ref, server, nil
}

// textFile is a 0644 file of the image.
func textFile(path, text string) File { return File{Path: path, Mode: 0o644, Data: []byte(text)} }

// dir is a directory of the image with mode m.
func dir(path string, m int64) File { return File{Path: path, Mode: m, Dir: true} }
