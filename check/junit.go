package check

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// check's JUnit file: one test case per action of the verdict, failing
// with the defect it names, so a CI dashboard shows which stop is broken
// and why. Expectations given with --expect go to a file of their own
// (expectationsJUnit).

// junitSuite is the JUnit XML of a check verdict.
type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Failure *junitProblem `xml:"failure,omitempty"`
	Error   *junitProblem `xml:"error,omitempty"`
	Output  string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// expectationsJUnit is where check writes the JUnit of --expect
// expectations: beside the verdict's file, with "-expectations" before
// its extension; "" when there is no file or no expectation.
func expectationsJUnit(path string, any bool) string {
	if path == "" || !any {
		return ""
	}
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-expectations" + ext
}

// verdictJUnit builds the suite: a case per action (its findings as
// output; a failure naming its defects, an error when it could not be
// judged) and a case "shutdown verdict" carrying what would make it clean.
func verdictJUnit(o checkOpts, fs []finding) junitSuite {
	suite := junitSuite{Name: "shutdownlab check " + o.image}
	var order []string
	byAction := map[string][]finding{}
	for _, f := range fs {
		if f.Action == "" || f.Kind == "search" {
			continue
		}
		if byAction[f.Action] == nil {
			order = append(order, f.Action)
		}
		byAction[f.Action] = append(byAction[f.Action], f)
	}
	for _, a := range order {
		suite.Cases = append(suite.Cases, junitCaseOf(o, a, byAction[a]))
	}
	var all []finding
	for _, f := range fs {
		if f.Action == "" {
			all = append(all, f)
		}
	}
	total := junitCaseOf(o, "shutdown verdict", all)
	switch verdictCode(fs) {
	case VerdictUnclear:
		total.Failure, total.Error = nil, &junitProblem{Message: "could not tell: see the verdict", Text: verdictText(o, fs)}
	case VerdictDefect:
		if total.Failure == nil {
			total.Failure = &junitProblem{Message: "the verdict names a defect", Text: verdictText(o, fs)}
		}
	}
	suite.Cases = append(suite.Cases, total)
	suite.tally()
	return suite
}

// tally counts the suite's cases, failures and errors.
func (s *junitSuite) tally() {
	s.Tests, s.Failures, s.Errors = len(s.Cases), 0, 0
	for _, c := range s.Cases {
		if c.Failure != nil {
			s.Failures++
		}
		if c.Error != nil {
			s.Errors++
		}
	}
}

// junitCaseOf is one case: fails when a finding is a problem, with the
// problems as its message.
func junitCaseOf(o checkOpts, name string, fs []finding) junitCase {
	c := junitCase{Name: name, Class: "shutdownlab.check." + checkName(o.image)}
	var lines, bad []string
	for _, f := range fs {
		if f.Text == "" {
			continue
		}
		lines = append(lines, f.Text)
		if f.Bad {
			bad = append(bad, f.Text)
		}
	}
	c.Output = strings.Join(lines, "\n")
	if len(bad) > 0 {
		c.Failure = &junitProblem{Message: bad[0], Text: strings.Join(bad, "\n")}
	}
	return c
}

// writeVerdictJUnit writes the verdict's JUnit file at path.
func writeVerdictJUnit(path string, o checkOpts, fs []finding) error {
	return writeJUnit(path, verdictJUnit(o, fs))
}

// writeJUnit writes suite as a JUnit XML file at path, creating its
// directory.
func writeJUnit(path string, suite junitSuite) error {
	b, err := xml.MarshalIndent(suite, "", "  ")
	if err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if err := os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644); err != nil {
		return fmt.Errorf("junit %s: %w", path, err)
	}
	return nil
}
