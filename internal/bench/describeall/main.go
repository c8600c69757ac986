// Command describeall is the floor of strata discovering --describe tools
// as a whole process in the benchmarks: a bare Go program, nothing of
// strata's, that runs every file of the directory its argument names with
// --describe, a worker per CPU, in the directory it runs in, with the
// environment it was given, reads each answer's name and parameters, and
// prints how many tools answered. It is the least a program can do to
// learn the tools of a discovery directory.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
)

func main() {
	dir := os.Args[1]
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var next, answered atomic.Int64
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(entries); i = int(next.Add(1)) - 1 {
				out, err := exec.Command(filepath.Join(dir, entries[i].Name()), "--describe").Output()
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					continue
				}
				var d struct {
					Name       string          `json:"name"`
					Parameters json.RawMessage `json:"parameters"`
				}
				if json.Unmarshal(out, &d) == nil && d.Name != "" {
					answered.Add(1)
				}
			}
		})
	}
	wg.Wait()
	fmt.Println(answered.Load())
}
