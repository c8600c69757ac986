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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go stopOnSignal(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// stopOnSignal waits for the first signal, which cancels ctx: every
// command ends with it (reads of layer files look at it between chunks,
// programs and servers are stopped). A second signal then ends strata at
// once, as it would have without strata's handler; so does the end of the
// grace period, should something not have looked at ctx.
func stopOnSignal(ctx context.Context, stop context.CancelFunc) {
	<-ctx.Done()
	stop() // the next signal kills
	time.Sleep(stopGrace)
	fmt.Fprintln(os.Stderr, "strata: stopped by a signal; not ended after", stopGrace)
	os.Exit(1)
}
