package resolve

// ServerError is an MCP server that did not start or did not list its
// tools: the cause of the problem (a *diag.Error at mcp_servers.<name>)
// that resolving reports for it, which errors.As finds. Its tools are left
// out; no other server's tools change for it.
type ServerError struct {
	// Server is the server's name in the config (mcp_servers.<name>).
	Server string
	// Msg says what happened; it holds no secret's value and nothing the
	// server wrote to its stderr, so that it may reach a client.
	Msg string
	// Fix says what to change, where it is known; "" otherwise.
	Fix string
	// Stderr are the last lines the server wrote to its stderr, for the
	// local user only: they may hold what a client must not see.
	Stderr []string
	// Err is the cause.
	Err error
}

// Error returns what happened, then the fix.
func (e *ServerError) Error() string {
	if e.Fix != "" {
		return e.Msg + "; " + e.Fix
	}
	return e.Msg
}

// Unwrap returns the cause.
func (e *ServerError) Unwrap() error { return e.Err }
