package main

import "github.com/strata-config/strata/internal/cli/mcpcommands"

// The tests run every command in their own process: no signal handler of
// their own, and every P.
func init() { programs = mcpcommands.Programs{} }
