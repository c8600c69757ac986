// Command linked is a start-up floor of the benchmarks: a Go hello world
// that links every package the strata command links, and so runs their
// initialisation, but does nothing else. Its time over hello's is what
// linking strata costs before any command runs.
package main

import (
	"fmt"

	_ "github.com/strata-config/strata/internal/cli"
)

func main() { fmt.Println("hello, world") }
