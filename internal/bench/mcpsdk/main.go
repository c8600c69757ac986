// Command mcpsdk is a start-up floor of the benchmarks: a Go hello world
// that links the MCP SDK's mcp package, which strata needs for MCP servers
// (discovery, strata serve and call), and nothing of strata's. Its time
// over hello's is what the SDK and what it brings (net/http, crypto/tls,
// encoding/gob, jsonschema-go) cost every process before main runs.
package main

import (
	"fmt"

	_ "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() { fmt.Println("hello, world") }
