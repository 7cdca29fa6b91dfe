package main

import "testing"

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
