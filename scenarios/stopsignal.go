package scenarios

import "strings"

// signalNumbers maps the numbers Linux gives the signals of Signals.
var signalNumbers = map[string]string{"1": "SIGHUP", "2": "SIGINT", "3": "SIGQUIT", "9": "SIGKILL", "10": "SIGUSR1", "12": "SIGUSR2", "15": "SIGTERM", "28": "SIGWINCH"}

// SendableSignal normalises a signal name or number ("quit", "SIGQUIT",
// "3") to one of Signals, the signals an action may send; false (and s as
// given) for any other.
func SendableSignal(s string) (string, bool) {
	if n, ok := signalNumbers[strings.TrimSpace(s)]; ok {
		return n, true
	}
	if name, ok := normalizeSignal(strings.TrimSpace(s)); ok {
		return name, true
	}
	return s, false
}

// ImageStopSignal is the signal an image's STOPSIGNAL (as its
// configuration gives it: a name or a number, "" when it sets none) stops
// it with: SIGTERM, the runtime's default, when it sets none; else its
// STOPSIGNAL, normalised to a name of Signals when it is one (true), as
// given when it is not (false). Every reader of an image's stop signal
// (the runner's kubelet emulation, check, check --manifest) asks here.
func ImageStopSignal(stopSignal string) (string, bool) {
	if stopSignal == "" {
		return "SIGTERM", true
	}
	return SendableSignal(stopSignal)
}
