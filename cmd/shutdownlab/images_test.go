package main

import (
	"testing"

	"github.com/shutdownlab/shutdownlab/scenarios"
)

// TestStockPrintName: every fixture answers to fixture-NAME, the bare name
// works except for caddy (the proxy image), anything else is no fixture.
func TestStockPrintName(t *testing.T) {
	for in, want := range map[string]string{
		"nginx": "nginx", "fixture-nginx": "nginx", "apache": "apache", "fixture-haproxy": "haproxy",
		"lighttpd": "lighttpd", "fixture-caddy": "caddy", "caddy": "", "target": "", "fixture-": "", "fixture-iis": "",
	} {
		if got := stockPrintName(in); got != want {
			t.Errorf("stockPrintName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSendableSignalNumbers: every signal a scenario may send can be named
// by its number too (a STOPSIGNAL may be numeric), and back.
func TestSendableSignalNumbers(t *testing.T) {
	names := map[string]bool{}
	for _, n := range signalNumbers {
		names[n] = true
	}
	for _, s := range scenarios.Signals {
		if !names[s] {
			t.Errorf("%s has no number in signalNumbers", s)
		}
	}
	if got, ok := sendableSignal("28"); !ok || got != "SIGWINCH" {
		t.Errorf(`sendableSignal("28") = %q, %v`, got, ok)
	}
}
