// Command strata resolves the tool definitions an LLM application gives to
// a model: it merges layered configuration, shows differences between
// layers, and prints the JSON Schema of the config file.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long strata may take to end cleanly after SIGINT or
// SIGTERM (stopping the programs it started) before it exits anyway.
const stopGrace = 5 * time.Second

func main() {
	serving = oneProc
	startsPrograms = stopOnSignals
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// stopOnSignals returns ctx ended also by the first SIGINT or SIGTERM:
// the programs a command started run in process groups of their own, where
// a Ctrl-C on the terminal does not reach them, so the command must stop
// them (every command that starts programs ends with its context). A
// second signal then ends strata at once, as it would have without
// strata's handler; so does the end of the grace period, should something
// not have looked at ctx.
//
// Commands that start no program and write no file leave signals as they
// are: the handler's thread and system calls cost such a small command a
// twentieth of its time, and the default action, to end the process, loses
// nothing of theirs.
func stopOnSignals(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal kills
		if context.Cause(ctx) == context.Canceled {
			return // the command ended
		}
		time.Sleep(stopGrace)
		fmt.Fprintln(os.Stderr, "strata: stopped by a signal; not ended after", stopGrace)
		os.Exit(1)
	}()
	return ctx, stop
}
