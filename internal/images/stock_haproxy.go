package images

import "fmt"

// Host path of Debian's HAProxy 2.6 (built with Lua 5.3) and the command
// that installs it.
const (
	HAProxyBinary  = "/usr/sbin/haproxy"
	HAProxyInstall = "apt-get update -qq && apt-get install -y -qq haproxy"
)

// HAProxyConf renders the fixture's haproxy.cfg: one HTTP frontend on
// port, hard-stop-after graceSeconds (the bound of a soft stop), the Lua
// file at luaPath. /readyz and /livez are answered by `http-request
// return`, /slow by the Lua service lua.slow (HAProxyLua); nothing is
// proxied. Keep-alive is as generous as the nginx fixture's (65 s).
func HAProxyConf(port, graceSeconds int, luaPath string) string {
	return fmt.Sprintf(`# shutdownlab HAProxy fixture (internal/images/stock_haproxy.go): stock Debian haproxy.
global
    lua-load %s
    hard-stop-after %ds

defaults
    mode http
    timeout client 65s
    timeout connect 5s
    timeout server 65s
    timeout http-keep-alive 65s

frontend fixture
    bind :%d
    http-request return status 200 content-type text/plain string ok if { path %s } || { path %s }
    http-request use-service lua.slow if { path %s }
    http-request return status 404 content-type text/plain string "not found"
`, luaPath, graceSeconds, port, StockReadyPath, StockLivePath, StockSlowPath)
}

// HAProxyLua renders the Lua service "slow": core.msleep(slowMs), a
// yielding sleep, and only then the status, headers and "ok", so nothing
// is sent before the delay ends.
func HAProxyLua(slowMs int) string {
	return fmt.Sprintf(`-- shutdownlab HAProxy fixture: the /slow service.
core.register_service("slow", "http", function(applet)
    core.msleep(%d)
    applet:set_status(200)
    applet:add_header("content-type", "text/plain")
    applet:add_header("content-length", "2")
    applet:start_response()
    applet:send("ok")
end)
`, slowMs)
}

// haproxyServer is Debian's HAProxy 2.6, run as `haproxy -W -db -f
// /etc/haproxy/haproxy.cfg`: master-worker mode in the foreground, the
// master PID 1 (it forwards SIGUSR1, SIGTERM and SIGINT to the worker and
// exits after it), exactly the flags the official haproxy image's
// docker-entrypoint.sh adds. The management guide recommends no mode for
// containers; the official image's choice is followed so that
// SIGUSR2/SIGHUP reloads work as they do there.
func haproxyServer() StockServer {
	const lua = "/etc/haproxy/fixture.lua"
	return StockServer{
		Name:     "haproxy",
		Product:  "HAProxy",
		Packages: []string{"haproxy"},
		Install:  HAProxyInstall,
		Binaries: []HostBinary{{Host: HAProxyBinary, Path: HAProxyBinary}},
		Files: append(EtcFiles(),
			textFile("etc/haproxy/haproxy.cfg", HAProxyConf(StockPort, StockGraceSeconds, lua)),
			textFile(lua, HAProxyLua(int(StockSlowDelay.Milliseconds()))),
			dir("tmp", 0o1777),
		),
		Entrypoint: []string{HAProxyBinary, "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"},
		Foreground: "master-worker mode in the foreground (-W -db, the official image's flags): the master is PID 1 and forwards stop signals to its worker",
		Version:    VersionQuery{Cmd: []string{HAProxyBinary, "-v"}, Pattern: `HAProxy version (\S+)`},
		Stop: StopSemantics{
			Graceful: "SIGUSR1",
			Fast:     "SIGTERM",
			Signals: []SignalRule{
				{"SIGTERM", ActionFast, "SIGTERM: hard stop, the process immediately quits and all established connections are closed"},
				{"SIGUSR1", ActionGraceful, "SIGUSR1: graceful (soft) stop, unbind the listening ports, keep processing existing connections until they close, then leave (bounded by hard-stop-after)"},
				{"SIGUSR2", ActionReload, "SIGUSR2 (master-worker mode): the master re-executes itself with -sf and the workers' PIDs, parses the configuration and forks new workers"},
				{"SIGHUP", ActionReload, "SIGHUP (master-worker mode): reload, as SIGUSR2"},
			},
			GracefulBound:      "hard-stop-after 10s (HAProxy's default: none, a soft stop waits for every connection)",
			GracefulExit:       0,
			FastExit:           0,
			FastExitIdle:       0,
			ExitDoc:            "not documented; measured 0 after both (after SIGTERM the worker exits 143, Terminated, and the master 0)",
			DocURL:             "https://docs.haproxy.org/2.6/management.html#4",
			OfficialStopSignal: "SIGUSR1",
		},
	}
}
