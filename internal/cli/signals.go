package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long strata may take to end cleanly after SIGINT or
// SIGTERM (stopping the programs it started) before it exits anyway.
const stopGrace = 5 * time.Second

// errSignal is the cause of a command's context that a signal ended.
var errSignal = errors.New("stopped by a signal")

// stopOnSignals is called first by the commands that start programs or
// write files (resolve, call, serve, trust): it returns their env, whose
// context ends also at the first SIGINT or SIGTERM, and the function that
// gives the signals back their default action. The programs a command
// started run in process groups of their own, where a Ctrl-C on the
// terminal does not reach them, so the command must stop them (every
// command that starts programs ends with its context). A second signal
// then ends strata at once, as it would have without strata's handler;
// so does the end of the grace period after the first, should something
// not have looked at the context. Nothing but a signal ends the process:
// a context that ends otherwise (its deadline, the caller's cancel) is
// the command's to handle.
//
// Commands that start no program and write no file leave signals as they
// are: the handler's thread and system calls cost such a small command a
// twentieth of its time, and the default action, to end the process, loses
// nothing of theirs.
func stopOnSignals(e *env) (*env, func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(e.Ctx)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-sigs:
		}
		signal.Stop(sigs) // the next signal kills
		cancel(errSignal)
		select {
		case <-done:
			return // the command ended
		case <-time.After(stopGrace):
		}
		fmt.Fprintln(os.Stderr, "strata: stopped by a signal; not ended after", stopGrace)
		os.Exit(1)
	}()
	c := *e
	c.Ctx = ctx
	return &c, func() {
		signal.Stop(sigs)
		close(done)
		cancel(context.Canceled)
	}
}
