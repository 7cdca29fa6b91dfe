package images

import (
	"fmt"
	"runtime"
	"strings"
)

// Host paths of Debian's Apache httpd 2.4 (package apache2; the binary and
// modules come from apache2-bin, mod_lua's Lua 5.3 from liblua5.3-0).
const (
	ApacheBinary     = "/usr/sbin/apache2"
	ApacheModulesDir = "/usr/lib/apache2/modules"
	ApacheInstall    = "apt-get update -qq && apt-get install -y -qq apache2 libgcc-s1"
)

// LibgccS is the host's libgcc_s.so.1 (Debian package libgcc-s1) at its
// multiarch path, e.g. /lib/x86_64-linux-gnu/libgcc_s.so.1.
func LibgccS() string {
	triplet := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu"}[runtime.GOARCH]
	return "/lib/" + triplet + "/libgcc_s.so.1"
}

// apacheModules are the only modules the fixture loads: the event MPM
// (Debian's default), authz_core (without it every request fails with
// "couldn't check user") and mod_lua for the handlers.
var apacheModules = []struct{ id, file string }{
	{"mpm_event_module", "mod_mpm_event.so"},
	{"authz_core_module", "mod_authz_core.so"},
	{"lua_module", "mod_lua.so"},
}

// ApacheConf renders the fixture's httpd.conf: a minimal configuration of
// our own (none of Debian's /etc/apache2 tree), listening on port, with
// GracefulShutdownTimeout graceSeconds and the three paths mapped to the
// Lua handlers of ApacheLua at luaPath (LuaMapHandler). Keep-alive is as
// generous as the nginx fixture's (65 s, unlimited requests).
func ApacheConf(port, graceSeconds int, luaPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# shutdownlab Apache httpd fixture (internal/images/stock_apache.go): stock Debian apache2.
ServerRoot /etc/apache2
ServerName localhost
Listen %d
PidFile /tmp/apache2.pid
DefaultRuntimeDir /tmp
ErrorLog /dev/stderr
LogLevel notice
User nobody
Group nogroup
`, port)
	for _, m := range apacheModules {
		fmt.Fprintf(&b, "LoadModule %s %s/%s\n", m.id, ApacheModulesDir, m.file)
	}
	fmt.Fprintf(&b, `GracefulShutdownTimeout %d
KeepAlive On
KeepAliveTimeout 65
MaxKeepAliveRequests 0
LuaScope thread
<Location />
    Require all granted
</Location>
LuaMapHandler ^%s$ %s slow
LuaMapHandler ^(%s|%s)$ %s ok
`, graceSeconds, StockSlowPath, luaPath, StockReadyPath, StockLivePath, luaPath)
	return b.String()
}

// ApacheLua renders the fixture's mod_lua handlers: ok answers 200 "ok";
// slow sleeps slowMs with r.usleep (mod_lua's documented sleep, in
// microseconds) and only then writes its answer, so nothing is sent before
// the delay ends.
func ApacheLua(slowMs int) string {
	return fmt.Sprintf(`-- shutdownlab Apache httpd fixture handlers (mod_lua).
function ok(r)
    r.content_type = "text/plain"
    r:puts("ok")
    return apache2.OK
end

function slow(r)
    r.usleep(%d)
    r.content_type = "text/plain"
    r:puts("ok")
    return apache2.OK
end
`, slowMs*1000)
}

// apacheServer is Debian's Apache httpd 2.4 with the event MPM and mod_lua,
// plus libgcc_s, which glibc loads at run time for pthread_exit (ldd does not
// list it; without it every child aborted under load: "libgcc_s.so.1 must be
// installed for pthread_exit to work"),
// run as `apache2 -DFOREGROUND -f /etc/apache2/httpd.conf`: the parent is
// PID 1 (as root, to bind and set up its children) and the children run as
// nobody.
func apacheServer() StockServer {
	bins := []HostBinary{{Host: ApacheBinary, Path: ApacheBinary}, {Host: LibgccS(), Mode: 0o644}}
	for _, m := range apacheModules {
		p := ApacheModulesDir + "/" + m.file
		bins = append(bins, HostBinary{Host: p, Path: p, Mode: 0o644})
	}
	const lua = "/etc/apache2/fixture.lua"
	return StockServer{
		Name:     "apache",
		Product:  "Apache httpd",
		Packages: []string{"apache2", "libgcc-s1"},
		Install:  ApacheInstall,
		Binaries: bins,
		Files: append(EtcFiles(),
			textFile("etc/apache2/httpd.conf", ApacheConf(StockPort, StockGraceSeconds, lua)),
			textFile(lua, ApacheLua(int(StockSlowDelay.Milliseconds()))),
			dir("tmp", 0o1777),
		),
		Entrypoint: []string{ApacheBinary, "-DFOREGROUND", "-f", "/etc/apache2/httpd.conf"},
		Foreground: "the httpd parent as PID 1 (-DFOREGROUND, as the official httpd image's httpd-foreground does), event MPM children as nobody",
		Version:    VersionQuery{Cmd: []string{ApacheBinary, "-v"}, Pattern: `Server version: (Apache/\S+(?: \([^)]*\))?)`},
		Stop: StopSemantics{
			Graceful: "SIGWINCH",
			Fast:     "SIGTERM",
			Signals: []SignalRule{
				{"SIGTERM", ActionFast, "TERM (stop): the parent immediately attempts to kill off all of its children; any requests in progress are terminated"},
				{"SIGWINCH", ActionGraceful, "WINCH (graceful-stop): children exit after their current request; the parent stops listening and exits once they have, or after GracefulShutdownTimeout"},
				{"SIGHUP", ActionRestart, "HUP (restart): kills the children like TERM, but the parent stays, re-reads its configuration and starts new children"},
				{"SIGUSR1", ActionGracefulRestart, "USR1 (graceful): children exit after their current request and are replaced by a new generation"},
			},
			GracefulBound:      "GracefulShutdownTimeout 10 (httpd's default: 0, no timeout)",
			GracefulExit:       0,
			FastExit:           0,
			FastExitIdle:       0,
			ExitDoc:            "not documented; measured 0 after both",
			DocURL:             "https://httpd.apache.org/docs/2.4/stopping.html",
			OfficialStopSignal: "SIGWINCH",
		},
	}
}
