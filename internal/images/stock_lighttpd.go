package images

import "fmt"

// Host paths of Debian's lighttpd 1.4 and its CGI module, the shell and
// sleep the /slow CGI script runs (dash and coreutils, both Essential),
// and the command that installs them.
const (
	LighttpdBinary  = "/usr/sbin/lighttpd"
	LighttpdCGI     = "/usr/lib/lighttpd/mod_cgi.so"
	DashBinary      = "/bin/dash"
	SleepBinary     = "/bin/sleep"
	LighttpdInstall = "apt-get update -qq && apt-get install -y -qq lighttpd dash coreutils"
)

// LighttpdConf renders the fixture's lighttpd.conf: document root docRoot
// (static readyz and livez files, the slow CGI script), port, mod_cgi
// running "slow" with /bin/sh, the graceful-shutdown bound graceSeconds as
// the "server.graceful-shutdown-timeout" feature flag (the 1.4.69 spelling;
// default 8 s), the server as nobody, uploads under /tmp. The error log is
// left on stderr, where lighttpd -D keeps it: a server.errorlog of
// /dev/stderr is opened after root is dropped, and was refused. Keep-alive
// is as generous as the nginx fixture's (65 s idle, 1000 requests).
func LighttpdConf(port, graceSeconds int, docRoot string) string {
	return fmt.Sprintf(`# shutdownlab lighttpd fixture (internal/images/stock_lighttpd.go): stock Debian lighttpd.
server.document-root = %q
server.port = %d
server.username = "nobody"
server.groupname = "nogroup"
server.pid-file = "/tmp/lighttpd.pid"
server.upload-dirs = ( "/tmp" )
server.modules = ( "mod_cgi" )
server.max-keep-alive-requests = 1000
server.max-keep-alive-idle = 65
server.feature-flags = ( "server.graceful-shutdown-timeout" => %d )
cgi.assign = ( %q => "/bin/sh" )
`, docRoot, port, graceSeconds, StockSlowPath)
}

// SlowCGI renders the /slow CGI script: /bin/sleep for slowMs, then the
// whole answer at once (a CGI Status header, so lighttpd sends nothing
// before the script writes).
func SlowCGI(slowMs int) string {
	return fmt.Sprintf(`#!/bin/sh
# shutdownlab stock fixture: /slow answers 200 "ok" after the sleep, not a byte before.
/bin/sleep %d.%03d
printf 'Status: 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok'
`, slowMs/1000, slowMs%1000)
}

// lighttpdServer is Debian's lighttpd 1.4 with mod_cgi, run as `lighttpd
// -D -f /etc/lighttpd/lighttpd.conf` (-D: do not daemonize) as PID 1; it
// reaps its CGI children. /readyz and /livez are static files.
func lighttpdServer() StockServer {
	const root = "/var/www/fixture"
	return StockServer{
		Name:     "lighttpd",
		Product:  "lighttpd",
		Packages: []string{"lighttpd", "dash", "coreutils"},
		Install:  LighttpdInstall,
		Binaries: []HostBinary{
			{Host: LighttpdBinary, Path: LighttpdBinary},
			{Host: LighttpdCGI, Path: LighttpdCGI, Mode: 0o644},
			{Host: DashBinary, Path: "/bin/sh"},
			{Host: SleepBinary, Path: SleepBinary},
		},
		Files: append(EtcFiles(),
			textFile("etc/lighttpd/lighttpd.conf", LighttpdConf(StockPort, StockGraceSeconds, root)),
			textFile(root+StockReadyPath, "ok"),
			textFile(root+StockLivePath, "ok"),
			File{Path: root + StockSlowPath, Mode: 0o755, Data: []byte(SlowCGI(int(StockSlowDelay.Milliseconds())))},
			dir("tmp", 0o1777),
		),
		Entrypoint: []string{LighttpdBinary, "-D", "-f", "/etc/lighttpd/lighttpd.conf"},
		Foreground: "lighttpd -D (no daemonizing) as PID 1, as nobody after binding; it reaps its CGI children",
		Version:    VersionQuery{Cmd: []string{LighttpdBinary, "-v"}, Pattern: `(lighttpd/\S+)`},
		Stop: StopSemantics{
			Graceful: "SIGINT",
			Fast:     "SIGTERM",
			Signals: []SignalRule{
				{"SIGTERM", ActionFast, "SIGTERM: shut down immediately (terminate existing connections, then exit)"},
				{"SIGINT", ActionGraceful, "SIGINT: shut down gracefully (serve existing connections, then exit)"},
				{"SIGUSR1", ActionGracefulRestart, "SIGUSR1: reload gracefully (serve existing connections, then reload config)"},
				{"SIGHUP", ActionReopen, "SIGHUP: re-open log files (does not reload the configuration)"},
			},
			GracefulBound:      `server.feature-flags "server.graceful-shutdown-timeout" => 10 (lighttpd's default since 1.4.64: 8 s)`,
			GracefulExit:       0,
			FastExit:           1,
			FastExitIdle:       0,
			ExitDoc:            "not documented; measured 0 after SIGINT, and after SIGTERM 1 with connections open, 0 idle (server.c main: the exit code is 0 only when no connection is left)",
			DocURL:             "https://git.lighttpd.net/lighttpd/lighttpd1.4/src/tag/lighttpd-1.4.69/doc/initscripts.txt",
			OfficialStopSignal: "",
		},
	}
}
