package images

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"
)

// NginxImageName is the repository of the stock nginx fixture image.
const NginxImageName = "shutdownlab/fixture-nginx"

// Host paths of Debian's nginx and its echo module (package
// libnginx-mod-http-echo), and the command that installs both.
const (
	NginxBinary     = "/usr/sbin/nginx"
	NginxEchoModule = "/usr/lib/nginx/modules/ngx_http_echo_module.so"
	NginxInstall    = "apt-get update -qq && apt-get install -y -qq nginx libnginx-mod-http-echo"
)

// Labels set on the nginx fixture image.
const (
	// LabelNginxVersion holds `nginx -v` of the host binary ("nginx/1.22.1").
	LabelNginxVersion = "shutdownlab.nginx_version"
	// LabelNginxBase says where nginx came from ("host:/usr/sbin/nginx").
	LabelNginxBase = "shutdownlab.nginx_base"
)

// NginxPort is the port the fixture listens on (the harness's default
// target.protocol.port).
const NginxPort = 8080

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
const NginxConf = `# shutdownlab nginx fixture (internal/images/nginx.go): stock Debian nginx.
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

// NginxFixtureImage describes the nginx fixture image, assembled from this
// host's Debian packages nginx and libnginx-mod-http-echo: /usr/sbin/nginx
// and the echo module with their ldd libraries, EtcFiles, NginxConf at
// /etc/nginx/nginx.conf, and the directories nginx writes to at start-up
// (/tmp 1777, /var/lib/nginx for its default temp paths, /var/log/nginx),
// run as ENTRYPOINT ["/usr/sbin/nginx", "-c", "/etc/nginx/nginx.conf"] so
// the nginx master is PID 1 (no --init needed: it reaps its workers).
//
// The image sets no STOPSIGNAL, so `docker stop` sends SIGTERM: nginx's
// fast shutdown, which drops in-flight requests. That is what Debian's
// nginx gets when put in an image as-is; the official nginx image sets
// STOPSIGNAL SIGQUIT (graceful) instead. version is `nginx -v`'s
// "nginx/X.Y.Z". When nginx or the module is missing, the error names
// NginxInstall.
func NginxFixtureImage(ctx context.Context) (spec HostImage, version string, err error) {
	for _, p := range []string{NginxBinary, NginxEchoModule} {
		if _, err := os.Stat(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return HostImage{}, "", fmt.Errorf("nginx fixture: %s not found on this host; install nginx and its echo module with: %s", p, NginxInstall)
			}
			return HostImage{}, "", fmt.Errorf("nginx fixture: %w", err)
		}
	}
	if version, err = nginxVersion(ctx); err != nil {
		return HostImage{}, "", err
	}
	files := append(EtcFiles(),
		File{Path: "etc/nginx/nginx.conf", Mode: 0o644, Data: []byte(NginxConf)},
		File{Path: "tmp", Mode: 0o1777, Dir: true},
		File{Path: "var/lib/nginx", Mode: 0o755, Dir: true},
		File{Path: "var/log/nginx", Mode: 0o755, Dir: true},
	)
	return HostImage{
		Name: NginxImageName,
		Binaries: []HostBinary{
			{Host: NginxBinary, Path: NginxBinary},
			{Host: NginxEchoModule, Path: NginxEchoModule, Mode: 0o644},
		},
		Files:      files,
		Entrypoint: []string{NginxBinary, "-c", "/etc/nginx/nginx.conf"},
		Labels:     map[string]string{LabelNginxVersion: version, LabelNginxBase: "host:" + NginxBinary},
	}, version, nil
}

// NginxFixture builds (or reuses, by content hash: a warm call reads and
// hashes ~10 MB and builds nothing) the nginx fixture image described by
// NginxFixtureImage and returns its reference and nginx's version. log
// receives one progress line (nil: silent).
func NginxFixture(ctx context.Context, eng Engine, log io.Writer) (ref, version string, err error) {
	spec, version, err := NginxFixtureImage(ctx)
	if err != nil {
		return "", "", err
	}
	ref, _, err = BuildHostImage(ctx, eng, spec, log)
	if err != nil {
		return "", "", err
	}
	return ref, version, nil
}

// nginxVersion is "nginx/X.Y.Z" from `nginx -v` (which prints
// "nginx version: nginx/X.Y.Z" on stderr), bounded to 20 s.
func nginxVersion(ctx context.Context) (string, error) {
	vctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(vctx, NginxBinary, "-v").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("nginx fixture: %s -v: %w: %s", NginxBinary, err, strings.TrimSpace(string(out)))
	}
	_, v, ok := strings.Cut(strings.TrimSpace(string(out)), "nginx version: ")
	if !ok || v == "" {
		return "", fmt.Errorf("nginx fixture: %s -v printed %q, want \"nginx version: nginx/X.Y.Z\"", NginxBinary, out)
	}
	return v, nil
}
