package main

import "github.com/strata-config/strata/internal/cli/mcpcommands"

// The tests run every command in their own process, as strata-mcp does:
// the commands strata hands to strata-mcp included.
func init() { programs = mcpcommands.Programs{} }
