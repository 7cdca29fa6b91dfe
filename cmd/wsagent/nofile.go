package main

import (
	"fmt"
	"strconv"
	"syscall"

	"github.com/shutdownlab/shutdownlab/internal/agentcmd"
)

// fdSlack is the open files the agent needs beside its connections
// (stdio, the runtime, a handshake in progress per client).
const fdSlack = 64

// checkNoFile refuses a client count the process's open-file limit cannot
// hold (Go raises the soft limit to the hard one at start), naming both,
// rather than letting connections fail as if the server refused them. It
// returns the limit for the log.
func checkNoFile(clients int) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, nil // no limit to read: nothing to refuse
	}
	if need := uint64(clients) + fdSlack; lim.Cur < need {
		return lim.Cur, agentcmd.BadFlag("clients", strconv.Itoa(clients), fmt.Sprintf(
			"needs %d open files and this process may open %d: raise the container's limit (docker run --ulimit nofile=N, or the engine's LimitNOFILE)",
			need, lim.Cur))
	}
	return lim.Cur, nil
}
