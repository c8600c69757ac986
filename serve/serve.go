// Package serve serves a resolved catalog to any MCP client, over stdio
// ([Server.Serve]) or streamable HTTP ([Server.ServeHTTP]): tools/list is the catalog, with the user's overrides applied (renamed
// tools, narrowed enums, rewritten descriptions), and tools/call goes
// through [call], so that any MCP client gets the user's curated tools,
// whichever protocol each speaks underneath. A host with a
// strata.Workspace serves with its Serve method, which also relays for
// the MCP servers behind the catalog; a [Server] serves a catalog the
// host resolved in its own way.
//
// The server's identity is the catalog's fingerprint (same tools, same
// id): it is the version in serverInfo, every tools/list result carries
// the current one in _meta under [MetaFingerprint], and seed 002's
// server/identity is answered with a UUID derived from it. When a watched
// file or directory changes, or [Server.Invalidate] is called, the
// catalog is resolved again; when it changed, the tools are replaced and
// the client is sent notifications/tools/list_changed.
//
// Calls carry the JP tool protocol both ways: the answers of a call
// retried after needs_input are read from _meta."computer.jp/tool".answers,
// and an error or a needs_input outcome is answered as one text content
// holding the Outcome envelope (isError for an error), which a JP-aware
// client reads as such and any other shows as text.
package serve

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/internal/mcpserver"
)

// MetaFingerprint is the _meta key of tools/list results that holds the
// catalog's fingerprint.
const MetaFingerprint = mcpserver.MetaFingerprint

// MetaEmpty is the _meta key of a tools/list result with no tools that
// says why ([Snapshot].Empty).
const MetaEmpty = mcpserver.MetaEmpty

// Snapshot is one resolution: what a server serves until the next.
type Snapshot struct {
	// Runner runs the calls; its Catalog is what tools/list lists.
	Runner *call.Runner
	// Watch are files and directories whose change means resolving again;
	// paths that do not exist yet count when they appear.
	Watch []string
	// Empty says why the catalog has no tools (an untrusted workspace, a
	// server that did not start, nothing configured): a client that lists
	// no tools is sent it as a warning log message (logger "strata"), and
	// the list's _meta holds it under [MetaEmpty].
	Empty string
}

// StaleError is told to Warn when the catalog does not resolve again after
// a change: the catalog before is still served.
type StaleError struct{ Err error }

func (e *StaleError) Error() string {
	return "resolving again: " + e.Err.Error() + "; still serving the catalog before"
}

// Unwrap returns the problem of the resolution.
func (e *StaleError) Unwrap() error { return e.Err }

// Server serves the catalogs that Load resolves.
type Server struct {
	// Load resolves the catalog. It is called when the server starts, and
	// again after every change; a failure keeps the catalog being served
	// (and is told to Warn as a [StaleError]).
	Load func(ctx context.Context) (*Snapshot, error)
	// Warn is told the problems that do not stop the server: a reload
	// that failed, a tool that cannot be served; nil drops them.
	Warn func(error)
	// Debounce is how long to wait after a change for more before
	// resolving again; 0 is 200 milliseconds.
	Debounce time.Duration

	once sync.Once
	s    *mcpserver.Server
}

// Equal reports whether s and o are the same server, a handle with a
// running session. It lets go-cmp compare values that hold servers.
func (s *Server) Equal(o *Server) bool { return s == o }

// server returns the server that serves for s.
func (s *Server) server() *mcpserver.Server {
	s.once.Do(func() {
		s.s = &mcpserver.Server{
			Load: func(ctx context.Context) (*mcpserver.Snapshot, error) {
				snap, err := s.Load(ctx)
				if err != nil {
					return nil, err
				}
				return &mcpserver.Snapshot{Runner: snap.Runner, Watch: snap.Watch, Empty: snap.Empty}, nil
			},
			Warn: s.Warn,
			Stale: func(err error) {
				if s.Warn != nil {
					s.Warn(&StaleError{Err: err})
				}
			},
			Debounce: s.Debounce,
		}
	})
	return s.s
}

// Serve serves over in and out, newline-delimited JSON-RPC as MCP's stdio
// transport is, until ctx is done or the client goes away. A line that is
// not JSON is answered with a parse error (-32700) and the session goes
// on; a request before initialize is answered with an invalid-request
// error (-32600); a line longer than 16 MiB is answered with an error and
// skipped.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.server().Serve(ctx, in, out)
}

// Invalidate asks for the catalog to be resolved again, as a change of a
// watched file does.
func (s *Server) Invalidate() { s.server().Invalidate() }
