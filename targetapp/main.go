package targetapp

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/shutdownlab/shutdownlab/record"
)

// Exit codes of Main and Run.
const (
	// ExitOK means drained (full) or Shutdown returned (close).
	ExitOK = 0
	// ExitDeadline means the DRAIN_MS deadline passed before the drain finished,
	// or the server stopped serving on its own.
	ExitDeadline = 1
	// ExitStartup means an invalid environment, unusable DATA_DIR, the port could
	// not be bound, or the queue worker (WORKER=on) could not start within
	// WorkerStartTimeout. Nothing was served. (The Go runtime also exits 2 when it
	// dies from SIGTERM as PID 1 in none mode; that case logged "up" first.)
	ExitStartup = 2
)

// Main is the target binary: it reads the configuration through getenv,
// subscribes to SIGTERM and SIGINT unless the mode is none, listens, and
// runs until the mode says to exit. It returns the process exit code; the
// caller passes it to os.Exit. Lifecycle events go to stdout, startup
// errors to stderr.
func Main(getenv func(string) string, stdout, stderr io.Writer) int {
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(stderr, "target: %s\n", line)
		}
		return ExitStartup
	}
	app, err := New(cfg, NewLogger(stdout, nil))
	if err != nil {
		fmt.Fprintf(stderr, "target: DATA_DIR=%q: %v\n", cfg.DataDir, err)
		return ExitStartup
	}
	var sigs chan os.Signal
	if cfg.Mode != ModeNone {
		// Subscribe before listening: no window where a signal kills the
		// process the mode says should drain.
		sigs = make(chan os.Signal, 8)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	}
	// A slow start (STARTUP_MS): the port refuses connections meanwhile.
	time.Sleep(cfg.Startup)
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)))
	if err != nil {
		fmt.Fprintf(stderr, "target: listen: %v\n", err)
		return ExitStartup
	}
	// The worker starts once the port is bound (a port that cannot be
	// bound must not leave fetched jobs behind) and before "up".
	ctx, cancel := context.WithTimeout(context.Background(), WorkerStartTimeout)
	err = app.StartWorker(ctx)
	cancel()
	if err != nil {
		_ = ln.Close()
		fmt.Fprintf(stderr, "target: %v\n", err)
		return ExitStartup
	}
	return Run(app, ln, sigs)
}

// Run serves app on ln, logs "up", and waits for the first signal on sigs
// (a nil channel never delivers: none mode). Then, per the app's mode, it
// runs StockShutdown and the worker's stock stop (close) or Drain with the
// DRAIN_MS deadline (full), logs every later signal as ignored (or, with
// REPEAT_SIGNAL=restart in full mode, re-arms the deadline from it),
// closes the worker's pool, logs "exit" and returns the exit code. If the
// server stops on its own first, Run logs "exit" with 1.
func Run(app *App, ln net.Listener, sigs <-chan os.Signal) int {
	cfg := app.Config()
	log := app.log
	if cfg.Mode == ModeNone {
		sigs = nil // none means none, whatever the caller passed
	}
	app.setListener(ln) // before any signal can start the drain
	serveErr := make(chan error, 1)
	go func() { serveErr <- app.Serve(ln) }()
	port := 0
	if ta, ok := ln.Addr().(*net.TCPAddr); ok {
		port = ta.Port
	}
	log.Log(record.Event{Event: record.EventUp, Mode: string(cfg.Mode), Msg: cfg.summary(port)})

	exit := func(code int, msg string, jobsRunning int) int {
		log.Log(exitRecord(code, msg, jobsRunning))
		return code
	}
	var sig os.Signal
	select {
	case err := <-serveErr:
		return exit(ExitDeadline, fmt.Sprintf("serve stopped: %v", err), 0)
	case sig = <-sigs:
	}
	signalAt, realAt := app.now(), time.Now()
	log.Log(record.Event{TimeNs: signalAt.UnixNano(), Event: record.EventSignal, Signal: signalName(sig)})
	app.workerAtSignal(signalAt)

	ctx, deadline, cancel := newDrainDeadline(realAt, cfg.Drain)
	defer cancel()
	stop := make(chan struct{})
	defer close(stop)
	go laterSignals(log, cfg, sigs, deadline, stop)

	switch cfg.Mode {
	case ModeClose:
		err := app.StockShutdown(signalAt)
		app.stopWorkerClose(signalAt)
		if err != nil {
			return exit(ExitDeadline, err.Error(), 0)
		}
		return exit(ExitOK, "", 0)
	default:
		if r := app.Drain(ctx, signalAt); !r.Drained {
			return exit(ExitDeadline, "", r.JobsRunning)
		}
		app.closeWorkerPool(signalAt)
		return exit(ExitOK, "", 0)
	}
}

// laterSignals logs every signal after the first until stop is closed: as
// ignored, or (full mode, REPEAT_SIGNAL=restart, DRAIN_MS > 0) as
// restarting the drain deadline from that signal.
func laterSignals(log *Logger, cfg Config, sigs <-chan os.Signal, deadline *drainDeadline, stop <-chan struct{}) {
	ignored := "ignored: already draining"
	if cfg.Mode == ModeClose {
		ignored = "ignored: already shutting down"
	}
	restart := cfg.Mode == ModeFull && cfg.Worker.RepeatSignal == RepeatRestart && cfg.Drain > 0
	for {
		select {
		case s := <-sigs:
			msg := ignored
			if restart {
				msg = "ignored: the drain deadline has passed"
				if deadline.restart() {
					msg = fmt.Sprintf("restarted: drain deadline DRAIN_MS=%d from this signal", cfg.Drain.Milliseconds())
				}
			}
			log.Log(record.Event{Event: record.EventSignal, Signal: signalName(s), Msg: msg})
		case <-stop:
			return
		}
	}
}
