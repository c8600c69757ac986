// Command mcplist is the floor of strata resolving MCP servers in the
// benchmarks: a bare program over the official Go SDK's client, nothing
// of strata's, that starts each server its arguments name (a command
// line each, its words separated by spaces), at once, declaring no
// capabilities (as strata does), lists its tools, every page, and prints
// how many there are. It then exits without
// waiting for the servers: they see their stdin close and end on their
// own time (server-everything keeps Node alive 350 ms after), which
// strata, which stops each server's process group, never leaves to them.
// It is the least a program can do to learn the servers' tools.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	ctx := context.Background()
	counts := make([]int, len(os.Args)-1)
	errs := make([]error, len(counts))
	var wg sync.WaitGroup
	for i, line := range os.Args[1:] {
		wg.Go(func() {
			words := strings.Fields(line)
			// No capabilities, as strata declares to a server it lists.
			client := mcp.NewClient(&mcp.Implementation{Name: "mcplist", Version: "1"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(words[0], words[1:]...)}, nil)
			if err != nil {
				errs[i] = err
				return
			}
			for _, err := range cs.Tools(ctx, nil) {
				if err != nil {
					errs[i] = err
					return
				}
				counts[i]++
			}
		})
	}
	wg.Wait()
	total := 0
	for i, err := range errs {
		if err != nil {
			fmt.Fprintf(os.Stderr, "mcplist: %s: %v\n", os.Args[i+1], err)
			os.Exit(1)
		}
		total += counts[i]
	}
	fmt.Println(total)
}
