package report

import (
	"fmt"
	"slices"
)

// The capabilities a program's reports read are installed once, in one
// explicit order, by the program at start (capabilities.Install, its one
// list); report itself names none of them. Until then, and in a program
// or test that installs none, the report is the core's alone: the core
// rows, sections and headline, no capability's rows, part or input.

var (
	// registered are the installed capabilities, in their order; nil
	// until Install.
	registered []Capability
	// catalogDefs is the catalog assembled from the core rows and the
	// registered capabilities' rows (catalogOf): the core rows alone
	// until Install.
	catalogDefs = catalogOf(coreDefs, nil)
)

// Install makes caps, in this order, the capabilities of every report
// the program reads or writes: the order of their rows among rows placed
// after the same core row, the order their headlines are tried in (first
// match), and the order their parts are computed in and written into
// summary.json. It panics on a capability that is not well formed
// (checkCapabilities), and on a second Install with other capabilities
// (the same ones again are a no-op): the list is the program's constant.
func Install(caps ...Capability) {
	if registered != nil {
		if !slices.Equal(namesOf(registered), namesOf(caps)) {
			panic(fmt.Sprintf("report: capabilities %v installed, then %v", namesOf(registered), namesOf(caps)))
		}
		return
	}
	catalogDefs = catalogOf(coreDefs, caps)
	registered = append([]Capability{}, caps...)
}

// namesOf lists the capabilities' names, in order.
func namesOf(caps []Capability) []Need {
	names := make([]Need, len(caps))
	for i, c := range caps {
		names[i] = c.Name
	}
	return names
}

// installed returns the installed capabilities, in order; none before
// Install.
func installed() []Capability { return registered }

// catalog is the catalog in report order (see catalogOf).
func catalog() []MetricDef { return catalogDefs }
