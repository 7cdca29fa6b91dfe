package images_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shutdownlab/shutdownlab/internal/images"
)

// requireStock fails when this host lacks a fixture's Debian packages (the
// image is built from them), naming the apt-get command, unless the unit
// tier skips host packages (requireHostPackage).
func requireStock(t *testing.T, s images.StockServer) {
	t.Helper()
	requireHostPackage(t, s.CheckHost())
}

// requireHostPackage fails the test with err, a missing host package named
// with the command that installs it, unless SHUTDOWNLAB_SKIP_HOST_PACKAGES=1
// (make test-unit: a machine with Go only) skips it. nil: the host has it.
func requireHostPackage(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("SHUTDOWNLAB_SKIP_HOST_PACKAGES") == "1" {
		t.Skipf("%v (SHUTDOWNLAB_SKIP_HOST_PACKAGES=1: make test runs this)", err)
	}
	t.Fatal(err)
}

// contextFiles returns the Dockerfile and the rootfs.tar of a build context.
func contextFiles(t *testing.T, ctxTar []byte) (dockerfile string, rootfs []byte) {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(ctxTar))
	for h, err := tr.Next(); err == nil; h, err = tr.Next() {
		b, _ := io.ReadAll(tr)
		switch h.Name {
		case "Dockerfile":
			dockerfile = string(b)
		case "rootfs.tar":
			rootfs = b
		}
	}
	if dockerfile == "" || rootfs == nil {
		t.Fatalf("build context lacks Dockerfile or rootfs.tar")
	}
	return dockerfile, rootfs
}

// TestStockTableConsistent: every entry names a documented graceful and
// fast signal that its own signal list classifies as such, documents
// SIGTERM (what `docker stop` sends), cites an https documentation URL,
// installs every package it names with apt-get, and runs an entrypoint.
func TestStockTableConsistent(t *testing.T) {
	seen := map[string]bool{}
	servers := images.StockServers()
	if len(servers) != 5 {
		t.Fatalf("%d stock servers, want nginx, apache, haproxy, lighttpd, caddy", len(servers))
	}
	for _, s := range servers {
		if s.Name == "" || seen[s.Name] || s.Product == "" {
			t.Errorf("entry %+v: empty or duplicate name", s.Name)
		}
		seen[s.Name] = true
		st := s.Stop
		if g, ok := s.Rule(st.Graceful); !ok || g.Action != images.ActionGraceful {
			t.Errorf("%s: graceful %s documented as %+v", s.Name, st.Graceful, g)
		}
		if f, ok := s.Rule(st.Fast); !ok || f.Action != images.ActionFast {
			t.Errorf("%s: fast %s documented as %+v", s.Name, st.Fast, f)
		}
		if st.Graceful == st.Fast {
			t.Errorf("%s: graceful and fast are both %s", s.Name, st.Graceful)
		}
		if s.DockerStop().Signal != "SIGTERM" {
			t.Errorf("%s: SIGTERM (docker stop) undocumented", s.Name)
		}
		sigs := map[string]bool{}
		for _, r := range st.Signals {
			if !strings.HasPrefix(r.Signal, "SIG") || sigs[r.Signal] || r.Doc == "" || r.Action == "" {
				t.Errorf("%s: bad or duplicate rule %+v", s.Name, r)
			}
			sigs[r.Signal] = true
		}
		if !strings.HasPrefix(st.DocURL, "https://") || st.GracefulBound == "" || st.ExitDoc == "" {
			t.Errorf("%s: doc URL %q, bound %q, exit doc %q", s.Name, st.DocURL, st.GracefulBound, st.ExitDoc)
		}
		if len(s.Entrypoint) == 0 || s.Foreground == "" || s.ImageName() != images.StockImagePrefix+s.Name {
			t.Errorf("%s: entrypoint %v, foreground %q, image %s", s.Name, s.Entrypoint, s.Foreground, s.ImageName())
		}
		if s.Base == "" {
			if !strings.HasPrefix(s.Install, "apt-get update -qq && apt-get install -y -qq ") || len(s.Binaries) == 0 {
				t.Errorf("%s: install %q, binaries %v", s.Name, s.Install, s.Binaries)
			}
			for _, p := range s.Packages {
				if !strings.Contains(s.Install, " "+p) {
					t.Errorf("%s: install %q lacks package %s", s.Name, s.Install, p)
				}
			}
			if len(s.Version.Cmd) == 0 || s.Version.Pattern == "" {
				t.Errorf("%s: no version query", s.Name)
			}
		} else if s.Base != images.CaddyImageName || s.Version.GoModule == "" {
			t.Errorf("%s: base %q, version %+v", s.Name, s.Base, s.Version)
		}
	}
	if _, err := images.LookupStockServer("iis"); err == nil || !strings.Contains(err.Error(), "apache, caddy, haproxy, lighttpd, nginx") {
		t.Errorf("unknown server: %v", err)
	}
	if r, ok := mustLookup(t, "apache").Rule("winch"); !ok || r.Signal != "SIGWINCH" {
		t.Errorf("Rule(winch) = %+v, %v", r, ok)
	}
}

func mustLookup(t *testing.T, name string) images.StockServer {
	t.Helper()
	s, err := images.LookupStockServer(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestStockConfigRendering: each renderer puts its parameters where the
// server reads them (port, graceful bound, slow delay, paths).
func TestStockConfigRendering(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"apache conf", images.ApacheConf(9090, 7, "/x/f.lua"), []string{"Listen 9090\n", "GracefulShutdownTimeout 7\n",
			"LuaMapHandler ^/slow$ /x/f.lua slow\n", "LuaMapHandler ^(/readyz|/livez)$ /x/f.lua ok\n", "mod_lua.so\n", "mod_mpm_event.so\n"}},
		{"apache lua", images.ApacheLua(1500), []string{"r.usleep(1500000)", "function ok(r)", "function slow(r)"}},
		{"haproxy cfg", images.HAProxyConf(9090, 7, "/x/f.lua"), []string{"bind :9090\n", "hard-stop-after 7s\n", "lua-load /x/f.lua\n",
			"use-service lua.slow if { path /slow }", "if { path /readyz } || { path /livez }"}},
		{"haproxy lua", images.HAProxyLua(1500), []string{"core.msleep(1500)", `register_service("slow", "http"`}},
		{"lighttpd conf", images.LighttpdConf(9090, 7, "/srv"), []string{"server.port = 9090\n", `"server.graceful-shutdown-timeout" => 7`,
			`server.document-root = "/srv"`, `cgi.assign = ( "/slow" => "/bin/sh" )`}},
		{"slow cgi", images.SlowCGI(1500), []string{"/bin/sleep 1.500\n", `Status: 200 OK\r\n`}},
		{"slow cgi 300", images.SlowCGI(300), []string{"/bin/sleep 0.300\n"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.text, w) {
				t.Errorf("%s lacks %q:\n%s", c.name, w, c.text)
			}
		}
	}
	var conf struct {
		Admin struct{ Disabled bool }
		Apps  struct {
			HTTP struct {
				GracePeriod string `json:"grace_period"`
				Servers     map[string]struct {
					Listen []string
					Routes []struct {
						Handle []map[string]any
					}
					Errors struct {
						Routes []struct{ Handle []map[string]any }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(images.CaddyFixtureConf(9090, 7, 1500), &conf); err != nil {
		t.Fatal(err)
	}
	srv := conf.Apps.HTTP.Servers["fixture"]
	if !conf.Admin.Disabled || conf.Apps.HTTP.GracePeriod != "7s" || len(srv.Listen) != 1 || srv.Listen[0] != ":9090" ||
		len(srv.Routes) != 2 || len(srv.Errors.Routes) != 1 {
		t.Fatalf("caddy conf: %+v", conf)
	}
	lb, _ := srv.Routes[1].Handle[0]["load_balancing"].(map[string]any)
	if srv.Routes[1].Handle[0]["handler"] != "reverse_proxy" || lb["try_duration"] != "1500ms" || lb["try_interval"] != "50ms" ||
		srv.Errors.Routes[0].Handle[0]["status_code"] != float64(200) {
		t.Errorf("caddy /slow route %+v, errors %+v", srv.Routes[1], srv.Errors)
	}
}

// TestStockConfigsValid: the host's own servers accept the fixtures'
// configurations (nginx -t, apache2 -t, haproxy -c, lighttpd -tt), with
// paths moved to a temporary directory and the port to 18080.
func TestStockConfigsValid(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lua := write("apache.lua", images.ApacheLua(300))
	hlua := write("haproxy.lua", images.HAProxyLua(300))
	for _, c := range []struct {
		server string
		args   []string
		ok     string
	}{
		{"nginx", []string{images.NginxBinary, "-t", "-c", write("nginx.conf", images.NginxConf)}, "test is successful"},
		{"apache", []string{images.ApacheBinary, "-t", "-f", write("httpd.conf", images.ApacheConf(18080, 10, lua))}, "Syntax OK"},
		{"haproxy", []string{images.HAProxyBinary, "-c", "-f", write("haproxy.cfg", images.HAProxyConf(18080, 10, hlua))}, "Configuration file is valid"},
		{"lighttpd", []string{images.LighttpdBinary, "-tt", "-f", write("lighttpd.conf", images.LighttpdConf(18080, 10, dir))}, ""},
	} {
		requireStock(t, mustLookup(t, c.server))
		out, err := exec.CommandContext(ctx, c.args[0], c.args[1:]...).CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.ok) || strings.Contains(string(out), "WARNING") {
			t.Errorf("%s: %v: %v\n%s", c.server, c.args, err, out)
		}
	}
}

// TestStockFixtureFiles: each fixture's build context holds its binaries,
// their libraries and loader, its configuration, runs its entrypoint, sets
// no STOPSIGNAL and carries the stock labels; the Caddy fixture is layered
// on the Caddy image; an existing tag is reused.
func TestStockFixtureFiles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	want := map[string][]string{
		"nginx":    {"usr/sbin/nginx", "usr/lib/nginx/modules/ngx_http_echo_module.so", "etc/nginx/nginx.conf", "lib/x86_64-linux-gnu/libpcre2-8.so.0", "var/lib/nginx"},
		"apache":   {"usr/sbin/apache2", "usr/lib/apache2/modules/mod_lua.so", "usr/lib/apache2/modules/mod_mpm_event.so", "etc/apache2/httpd.conf", "etc/apache2/fixture.lua", "lib/x86_64-linux-gnu/liblua5.3.so.0", "lib/x86_64-linux-gnu/libapr-1.so.0"},
		"haproxy":  {"usr/sbin/haproxy", "etc/haproxy/haproxy.cfg", "etc/haproxy/fixture.lua", "lib/x86_64-linux-gnu/liblua5.3.so.0"},
		"lighttpd": {"usr/sbin/lighttpd", "usr/lib/lighttpd/mod_cgi.so", "bin/sh", "bin/sleep", "var/www/fixture/slow", "var/www/fixture/readyz", "etc/lighttpd/lighttpd.conf"},
		"caddy":    {"etc/caddy/caddy.json"},
	}
	for _, s := range images.StockServers() {
		requireStock(t, s)
		base := ""
		if s.Base != "" {
			base = s.Base + ":src-0123456789abcdef"
		}
		spec, version, err := images.StockFixtureImage(ctx, s, base)
		if err != nil {
			t.Fatal(err)
		}
		f := &fakeEngine{}
		ref, _, err := images.BuildHostImage(ctx, f, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(ref, s.ImageName()+":") || f.tag != ref || version == "" {
			t.Fatalf("%s: ref %q (built %q), version %q", s.Name, ref, f.tag, version)
		}
		dockerfile, rootfs := contextFiles(t, f.ctxTar)
		ep, _ := json.Marshal(s.Entrypoint)
		from := "FROM scratch\n"
		if base != "" {
			from = "FROM " + base + "\n"
		}
		if !strings.HasPrefix(dockerfile, from) || !strings.Contains(dockerfile, "ENTRYPOINT "+string(ep)) || strings.Contains(dockerfile, "STOPSIGNAL") {
			t.Errorf("%s Dockerfile:\n%s", s.Name, dockerfile)
		}
		names := tarNames(t, rootfs)
		req := want[s.Name]
		if base == "" {
			req = append(req, "etc/passwd", "etc/group", "lib64/ld-linux-x86-64.so.2", "lib/x86_64-linux-gnu/libc.so.6", "tmp")
		}
		for _, p := range req {
			if names[p] == nil {
				t.Errorf("%s: rootfs lacks %s", s.Name, p)
			}
		}
		for _, b := range s.Binaries {
			if h := names[strings.TrimPrefix(b.Path, "/")]; h != nil && b.Mode == 0 && h.Mode&0o111 == 0 {
				t.Errorf("%s: %s mode %o, want executable", s.Name, b.Path, h.Mode)
			}
		}
		if spec.Labels[images.LabelStockServer] != s.Name || spec.Labels[images.LabelStockGraceful] != s.Stop.Graceful ||
			spec.Labels[images.LabelStockVersion] != version {
			t.Errorf("%s: labels %v", s.Name, spec.Labels)
		}
		t.Logf("%s %s: %d rootfs entries, %.1f MB", s.Name, version, len(names), float64(len(rootfs))/1e6)

		f2 := &fakeEngine{exists: true}
		if ref2, _, err := images.BuildHostImage(ctx, f2, spec, nil); err != nil || ref2 != ref || f2.tag != "" {
			t.Errorf("%s: cached call = %q, %v (built %q), want %q and no build", s.Name, ref2, err, f2.tag, ref)
		}
	}
}

// TestStockMissingPackage: a fixture whose files are not on this host fails
// with the apt-get command that installs them.
func TestStockMissingPackage(t *testing.T) {
	s := mustLookup(t, "apache")
	s.Binaries = append([]images.HostBinary{{Host: "/nonexistent/sbin/apache2"}}, s.Binaries...)
	_, _, err := images.StockFixtureImage(context.Background(), s, "")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/sbin/apache2") || !strings.Contains(err.Error(), images.ApacheInstall) {
		t.Errorf("err = %v, want one naming the file and %q", err, images.ApacheInstall)
	}
	if _, _, err := images.StockFixtureImage(context.Background(), mustLookup(t, "caddy"), ""); err == nil ||
		!strings.Contains(err.Error(), images.CaddyImageName) {
		t.Errorf("caddy without its base: %v", err)
	}
}

// TestGoModVersion reads a required module's version from go.mod text.
func TestGoModVersion(t *testing.T) {
	gomod := []byte("module x\n\ngo 1.26\n\nrequire github.com/caddyserver/caddy/v2 v2.11.4\n\nrequire (\n\tgithub.com/a/b v1.2.3 // indirect\n)\n")
	for path, want := range map[string]string{"github.com/caddyserver/caddy/v2": "v2.11.4", "github.com/a/b": "v1.2.3"} {
		if got, err := images.GoModVersion(gomod, path); err != nil || got != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := images.GoModVersion(gomod, "github.com/a"); err == nil {
		t.Errorf("a module's prefix matched")
	}
}
