// Package floors holds, in its test, the layering of strata's packages:
// each package sits on a floor and imports only packages on its floor or
// below, the config core links no process runner, no network and no
// MCP SDK, and the hosts of fixtures keep only the methods they call. It
// has no code.
package floors
