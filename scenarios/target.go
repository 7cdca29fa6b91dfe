package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Entrypoint is how the target's process is started inside its container.
type Entrypoint string

// The entrypoint forms.
const (
	// EntrypointExec starts the app itself as the container's process
	// (exec-form ENTRYPOINT): PID 1 without --init, tini's child with it.
	EntrypointExec Entrypoint = "exec"
	// EntrypointShell starts the app behind `/bin/sh -c '<app>; exit $?'`
	// (what a shell-form CMD or `npm start` does): the shell is PID 1 (or
	// tini's child) and the app is its child. The shell does not forward
	// SIGTERM. See docs/scenarios.md, "Signal delivery".
	EntrypointShell Entrypoint = "shell"
)

// Protocol says what part of the target protocol an image speaks: the port
// it listens on, its readiness path and the paths it serves. The built-in
// targets speak all of it (DefaultProtocol) on whatever port PORT says, so
// Port and ReadyPath apply to them too; Paths is checked only against an
// image (target.image).
type Protocol struct {
	// Port is the TCP port the image listens on (default 8080). PORT is
	// set to it in the container's environment, for images that honour it.
	Port int `yaml:"port" json:"port"`
	// ReadyPath is polled (GET, until 200) before load starts (default
	// /readyz); required.
	ReadyPath string `yaml:"ready_path" json:"ready_path"`
	// Paths are the request paths (without query) the image serves; a
	// load mix, job or probe using any other path (or the ready path) is
	// refused before anything starts. Default for the built-in targets:
	// /slow, /write, /job, /events; for a user image: none (see declareImagePaths).
	Paths []string `yaml:"paths" json:"paths"`
}

// DefaultProtocol is the protocol of the built-in targets (targetapp,
// and its Node twin), which serve every path a load kind of the project
// requests (/events: their WebSocket event stream).
func DefaultProtocol() Protocol {
	return Protocol{Port: 8080, ReadyPath: "/readyz", Paths: []string{"/slow", "/write", "/job", "/events"}}
}

// Serves reports whether the protocol declares the path of target (a
// request target with an optional query: "/slow?ms=300" is "/slow"). The
// ready path counts as declared.
func (p Protocol) Serves(target string) bool {
	path, _, _ := strings.Cut(target, "?")
	return path == p.ReadyPath || slices.Contains(p.Paths, path)
}

// given reports whether the value at path was written in the file, a
// variant or a --set (not a default).
func (l *locator) given(path string) bool {
	return l.lines[path] > 0 || l.fromSet[path]
}

// Given is given, for a kind's Validate (Locator).
func (l *locator) Given(path string) bool { return l.given(path) }

// validateTarget checks target.entrypoint, target.image and
// target.protocol, and that every path the load uses is one the image
// declares.
func validateTarget(s *Spec, loc *locator, fail FailFunc) {
	t := &s.Target
	switch t.Entrypoint {
	case EntrypointExec, EntrypointShell:
	default:
		fail("target.entrypoint", string(t.Entrypoint), "want exec or shell")
	}
	p := &t.Protocol
	if p.Port < 1 || p.Port > 65535 {
		fail("target.protocol.port", strconv.Itoa(p.Port), "must be 1..65535")
	}
	if p.ReadyPath == "" {
		fail("target.protocol.ready_path", "", "required: the load waits for GET ready_path to answer 200 before it starts")
	} else if !ValidPath(p.ReadyPath) || strings.Contains(p.ReadyPath, "?") {
		fail("target.protocol.ready_path", p.ReadyPath, `must start with "/" and hold no query, spaces or control characters`)
	}
	for i, path := range p.Paths {
		if !ValidPath(path) || strings.Contains(path, "?") {
			fail(fmt.Sprintf("target.protocol.paths[%d]", i), path, `must start with "/" and hold no query, spaces or control characters`)
		}
	}
	if t.Image == "" {
		// The built-in targets speak the whole protocol and honour PORT;
		// a file may still declare a protocol for use with --image.
		if t.Command != nil {
			fail("target.command", "", "only with target.image (the built-in targets start their own program)")
		}
		if t.Args != nil {
			fail("target.args", "", "only with target.image (the built-in targets start their own program)")
		}
		return
	}
	if t.Command != nil && (len(t.Command) == 0 || t.Command[0] == "") {
		fail("target.command", strings.Join(t.Command, " "), "must name the program to run (leave it out to keep the image's ENTRYPOINT)")
	}
	if strings.ContainsAny(t.Image, " \t\r\n") {
		fail("target.image", t.Image, "must be an image reference (no white space)")
	}
	if loc.given("target.runtime") {
		fail("target.runtime", string(t.Runtime), "only for the built-in target (target.image is set)")
	}
	if s.Action.Kind == ActionRoll && s.Action.Roll.Replacement != ReplaceNone {
		fail("action.roll.replacement", string(s.Action.Roll.Replacement),
			"not with target.image (a replacement is timed from the built-in target's \"up\" line)")
	}
	declareImagePaths(s, loc)
	refuse := func(field, path string) { fail(field, path, undeclaredPath(*t, path)) }
	if paths := s.Load.kindDef().TargetPaths; paths != nil {
		for _, r := range paths(s) {
			if !p.Serves(r.Path) {
				refuse(r.Field, r.Path)
			}
		}
		return
	}
	for i, r := range s.Load.Mix {
		if ValidPath(r.Path) && !p.Serves(r.Path) {
			refuse(fmt.Sprintf("load.mix[%d].path", i), r.Path)
		}
	}
	if s.Load.Job != nil && !p.Serves("/job") {
		refuse("load.job", "/job")
	}
}

// ValidPath reports whether a request target starts with "/" and holds no
// spaces or control characters: a kind's TargetPaths names only such a
// path, its Validate the others.
func ValidPath(p string) bool {
	return strings.HasPrefix(p, "/") && !strings.ContainsFunc(p, func(c rune) bool { return c <= ' ' || c == 0x7f })
}
