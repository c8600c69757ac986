// Command hello is the start-up floor of the benchmarks: a Go hello world,
// run as a process the way the CLI's commands are.
package main

import "fmt"

func main() { fmt.Println("hello, world") }
