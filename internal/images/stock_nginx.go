package images

// Host paths of Debian's nginx and its echo module (package
// libnginx-mod-http-echo), and the command that installs both.
const (
	NginxBinary     = "/usr/sbin/nginx"
	NginxEchoModule = "/usr/lib/nginx/modules/ngx_http_echo_module.so"
	NginxInstall    = "apt-get update -qq && apt-get install -y -qq nginx libnginx-mod-http-echo"
)

// NginxConf is the fixture's /etc/nginx/nginx.conf: stock nginx with no
// code of ours, speaking the part of the target protocol a user image
// needs:
//
//   - GET /readyz answers 200 {"ready":true} and GET /livez 200 ok, always
//     (nginx has no readiness that fails on shutdown: it stops accepting).
//   - GET /slow?ms=N answers 200 "ok" after N ms (0..any; default and any
//     non-numeric value: 300 ms). The echo module's echo_sleep takes
//     seconds with up to 3 decimals, so a map turns the ms digits into
//     "S.mmm". Headers and body are sent after the sleep: a request
//     dropped mid-sleep has received no byte.
//
// nginx's documented signals (https://nginx.org/en/docs/control.html):
// TERM and INT are a fast shutdown (workers exit at once, in-flight
// requests are dropped); QUIT is a graceful shutdown (stop accepting,
// finish in-flight requests, close idle keep-alive connections), bounded
// here by worker_shutdown_timeout. Keep-alive is generous (65 s, 100000
// requests per connection) so connections are reused as a busy client's
// would be. The master runs as root (PID 1 in the container) and the
// worker as nobody.
const NginxConf = `# shutdownlab nginx fixture (internal/images/stock_nginx.go): stock Debian nginx.
daemon off;
master_process on;
worker_processes 1;
user nobody nogroup;
error_log stderr notice;
pid /tmp/nginx.pid;
worker_shutdown_timeout 10s;
load_module ` + NginxEchoModule + `;

events {
    worker_connections 1024;
}

http {
    default_type text/plain;
    access_log off;
    keepalive_timeout 65s;
    keepalive_requests 100000;

    # /slow?ms=N -> echo_sleep seconds "S.mmm"; no or a non-numeric ms: 0.300.
    map $arg_ms $slow_s {
        default 0.300;
        "~^0*([1-9][0-9]*)([0-9]{3})$" $1.$2;
        "~^0*([0-9]{3})$" 0.$1;
        "~^0*([0-9]{2})$" 0.0$1;
        "~^0*([0-9])$" 0.00$1;
    }

    server {
        listen 8080;
        location = /readyz {
            default_type application/json;
            return 200 '{"ready":true}';
        }
        location = /livez {
            return 200 'ok';
        }
        location = /slow {
            echo_sleep $slow_s;
            echo ok;
        }
    }
}
`

// nginxServer is Debian's nginx with its echo module: /usr/sbin/nginx and
// the module with their ldd libraries, EtcFiles, NginxConf at
// /etc/nginx/nginx.conf, and the directories nginx writes to at start-up
// (/tmp 1777, /var/lib/nginx for its default temp paths, /var/log/nginx).
func nginxServer() StockServer {
	return StockServer{
		Name:     "nginx",
		Product:  "nginx",
		Packages: []string{"nginx", "libnginx-mod-http-echo"},
		Install:  NginxInstall,
		Binaries: []HostBinary{
			{Host: NginxBinary, Path: NginxBinary},
			{Host: NginxEchoModule, Path: NginxEchoModule, Mode: 0o644},
		},
		Files: append(EtcFiles(),
			textFile("etc/nginx/nginx.conf", NginxConf),
			dir("tmp", 0o1777),
			dir("var/lib/nginx", 0o755),
			dir("var/log/nginx", 0o755),
		),
		Entrypoint: []string{NginxBinary, "-c", "/etc/nginx/nginx.conf"},
		Foreground: "the nginx master as PID 1 (daemon off, master_process on: it reaps its worker), one worker as nobody",
		Version:    VersionQuery{Cmd: []string{NginxBinary, "-v"}, Pattern: `nginx version: (nginx/\S+)`},
		Stop: StopSemantics{
			Graceful: "SIGQUIT",
			Fast:     "SIGTERM",
			Signals: []SignalRule{
				{"SIGTERM", ActionFast, "TERM, INT: fast shutdown"},
				{"SIGINT", ActionFast, "TERM, INT: fast shutdown"},
				{"SIGQUIT", ActionGraceful, "QUIT: graceful shutdown"},
				{"SIGHUP", ActionReload, "HUP: changing configuration, starting new workers with a new configuration, graceful shutdown of old workers"},
				{"SIGUSR1", ActionReopen, "USR1: re-opening log files"},
				{"SIGUSR2", ActionReload, "USR2: upgrading an executable file"},
				{"SIGWINCH", ActionStopWorkers, "WINCH: graceful shutdown of worker processes (the master stays; nothing serves)"},
			},
			GracefulBound:      "worker_shutdown_timeout 10s (nginx's default: none, in-flight requests are waited for)",
			GracefulExit:       0,
			FastExit:           0,
			FastExitIdle:       0,
			ExitDoc:            "not documented; measured 0 after both",
			DocURL:             "https://nginx.org/en/docs/control.html",
			OfficialStopSignal: "SIGQUIT",
		},
	}
}
