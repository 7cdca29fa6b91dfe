package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Program is which program of the built-in target a replica runs.
type Program string

// ProgramServer is the target itself (targetapp/node/server.js, or the
// Go target): the default, also when target.program is absent. Every
// other program is declared by the capability that brings it
// (RegisterProgram): the Node cluster supervisor's is capabilities/cluster.
const ProgramServer Program = "server"

// ProgramDef is a program of the built-in target other than its server,
// as its capability declares it (RegisterProgram).
type ProgramDef struct {
	// Runtime is the only target runtime whose image holds the program.
	Runtime Runtime
	// Entrypoint is the container entrypoint of a replica running it
	// (the image's own entrypoint stays the server's).
	Entrypoint []string
	// Crashes says what the program does on a crash step
	// (action.before kind crash: docker kill -s CrashSignal), naming the
	// signal; "": it takes no crash step.
	Crashes string
	// Validate checks what the program reads from the spec (its
	// target.env); nil: nothing.
	Validate func(s *Spec, fail FailFunc)
}

// programs are the registered programs besides the server.
var programs = map[Program]ProgramDef{}

// RegisterProgram declares program p (target.program p), from its
// capability's init. It panics, at program start, on a name given twice,
// the server's, or a program without its runtime or entrypoint.
func RegisterProgram(p Program, d ProgramDef) {
	_, taken := programs[p]
	switch {
	case p == "" || p == ProgramServer || taken:
		panic(fmt.Sprintf("scenarios: program %q registered twice, empty or the server's", p))
	case d.Runtime == "" || len(d.Entrypoint) == 0:
		panic(fmt.Sprintf("scenarios: program %q: no runtime or no entrypoint", p))
	}
	programs[p] = d
}

// ProgramOf returns program p's declaration; false for the server ("" or
// server) and for a program nobody registered.
func ProgramOf(p Program) (ProgramDef, bool) {
	d, ok := programs[p]
	return d, ok
}

// programNames are the values target.program takes: server, then the
// registered programs, sorted.
func programNames() []string {
	names := []string{string(ProgramServer)}
	for _, p := range slices.Sorted(maps.Keys(programs)) {
		names = append(names, string(p))
	}
	return names
}

// crashPrograms are the registered programs that take a crash step, sorted.
func crashPrograms() []Program {
	var out []Program
	for _, p := range slices.Sorted(maps.Keys(programs)) {
		if programs[p].Crashes != "" {
			out = append(out, p)
		}
	}
	return out
}

// validateProgram checks target.program: the server or a registered
// program; a program only for the built-in target of its runtime with an
// exec entrypoint, and what the program itself checks.
func validateProgram(s *Spec, fail FailFunc) {
	t := &s.Target
	if t.Program == "" || t.Program == ProgramServer {
		return
	}
	d, ok := ProgramOf(t.Program)
	if !ok {
		fail("target.program", string(t.Program), "want "+joinOr(programNames(), ", "))
		return
	}
	switch {
	case t.Image != "":
		fail("target.program", string(t.Program), "only for the built-in target (target.image is set)")
	case t.Runtime != d.Runtime:
		fail("target.program", string(t.Program), fmt.Sprintf("the %s target is %s only (target.runtime is %s; want %s)",
			t.Program, d.Runtime.Title(), t.Runtime, d.Runtime))
	case t.Entrypoint == EntrypointShell:
		fail("target.program", string(t.Program), "not with target.entrypoint shell (the shell image runs server.js)")
	}
	if d.Validate != nil {
		d.Validate(s, fail)
	}
}

// Title is the runtime's name in a sentence ("Node", "Go").
func (r Runtime) Title() string {
	if r == "" {
		return ""
	}
	return strings.ToUpper(string(r[:1])) + string(r[1:])
}

// joinOr joins names as "a, b or c" (sep between all but the last two).
func joinOr(names []string, sep string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], sep) + " or " + names[len(names)-1]
}
