package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML shapes (the subset CI systems read).
type (
	junitSuites struct {
		XMLName xml.Name     `xml:"testsuites"`
		Suites  []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Classname string    `xml:"classname,attr"`
		Name      string    `xml:"name,attr"`
		Failure   *junitMsg `xml:"failure,omitempty"`
		Error     *junitMsg `xml:"error,omitempty"`
		SystemOut *cdata    `xml:"system-out,omitempty"`
	}
	cdata struct {
		Text string `xml:",cdata"`
	}
	junitMsg struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",cdata"`
	}
)

// WriteJUnit writes rep as JUnit XML: one <testsuite> named after the
// scenario, one <testcase classname="SCENARIO.VARIANT" name="EXPECTATION">
// per verdict. A failed verdict carries <failure message="REASON"> with one
// line per run ("run 1: failed = 3 (want failed == 0)"); a variant with
// invalid runs gets an <error> listing them on every one of its cases, as
// does a verdict that could not be evaluated; a passing case lists the
// measured values in <system-out>. No timestamps or durations: the output
// is a pure function of rep.
func WriteJUnit(w io.Writer, scenario string, rep Report) error {
	suite := junitSuite{Name: scenario}
	for _, v := range rep.Verdicts {
		c := junitCase{Classname: scenario + "." + v.Variant, Name: v.Expectation.Source}
		lines := strings.Join(v.Messages(), "\n")
		if v.Invalid > 0 || v.Err != nil {
			var errLines []string
			for _, r := range v.Runs {
				if !r.Valid {
					errLines = append(errLines, fmt.Sprintf("%s: invalid: %s", r.Name, r.Reason))
				}
			}
			msg := fmt.Sprintf("%d of %d %s invalid: the harness could not measure", v.Invalid, v.Valid+v.Invalid, plural(v.Valid+v.Invalid, "run"))
			if v.Invalid == 0 {
				msg = "could not evaluate"
			}
			if v.Err != nil {
				errLines = append(errLines, v.Err.Error())
			}
			c.Error = &junitMsg{Message: msg, Text: strings.Join(errLines, "\n")}
			suite.Errors++
		}
		if !v.Pass && v.Err == nil {
			c.Failure = &junitMsg{Message: v.Reason, Text: lines}
			suite.Failures++
		}
		if c.Failure == nil {
			c.SystemOut = &cdata{Text: v.Reason + "\n" + lines}
		}
		suite.Cases = append(suite.Cases, c)
		suite.Tests++
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{suite}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
