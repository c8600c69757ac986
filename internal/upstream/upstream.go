// Package upstream runs the MCP servers strata is a client of: it starts
// them (or connects to them), lists their tools, calls them, and, for a
// host that lives longer than one resolution, keeps them running between
// resolutions and calls ([Servers]).
package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/kballard/go-shellquote"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/trust"
)

// Spec is how to reach one server.
type Spec struct {
	// Name is the server's name in the config.
	Name    string
	Command string // the program: a path, or a name found in PATH
	Args    []string
	Env     []string // the whole environment of the process
	Dir     string
	// Startup bounds the start and the handshake; ToolTimeout bounds a
	// listing or a call.
	Startup, ToolTimeout time.Duration
	// Launch is what a pin covers; Pin, when set, must match it right
	// before the server starts.
	Launch trust.Launch
	Pin    *trust.Pin
	// Key is the cache key of the server's tools; nil when they are not
	// cached.
	Key *cache.Key
	// Remote, when its URL is set, is a remote server to connect to over
	// HTTP instead of a program to start; TokenVar names the variable its
	// bearer token was to come from, for messages.
	Remote   mcpclient.Remote
	TokenVar string
	// Transport, when set, connects to the server instead of starting
	// Command (tests give in-memory servers through it).
	Transport func(ctx context.Context) (mcp.Transport, error)
}

// Answer is what a server says: who it is, and its tools, schemas byte for
// byte.
type Answer struct {
	ServerInfo *mcp.Implementation `json:"serverInfo,omitempty"`
	Tools      []mcpclient.Tool    `json:"tools"`
}

// CommandLine is the server's command line, or its URL, for messages.
func (s Spec) CommandLine() string {
	if s.Remote.URL != "" {
		return s.Remote.URL
	}
	return shellquote.Join(append([]string{s.Command}, s.Args...)...)
}

// id is what identifies a running server: everything it was started with.
func (s Spec) id() string {
	b, _ := json.Marshal(struct {
		Name, Command string
		Args, Env     []string
		Dir           string
		Remote        mcpclient.Remote
	}{s.Name, s.Command, s.Args, s.Env, s.Dir, s.Remote})
	return string(b)
}

// ID returns what identifies the running server of s.
func (s Spec) ID() string { return s.id() }

// ListGrace is how long a server that only listed its tools may take to
// exit once its stdin closes, and again after SIGTERM: it has nothing to
// finish, and resolution waits for it.
const ListGrace = 10 * time.Millisecond

// Start starts the server (or connects to it), checking its pin first.
// started counts the programs started.
func Start(ctx context.Context, s Spec, grace time.Duration) (*mcpclient.Session, error) {
	if s.Transport != nil {
		t, err := s.Transport(ctx)
		if err != nil {
			return nil, err
		}
		return mcpclient.Connect(ctx, t, s.Startup)
	}
	if s.Remote.URL != "" {
		if s.TokenVar != "" && s.Remote.BearerToken == "" {
			return nil, fmt.Errorf("the variable %s, which bearer_token_env_var names, is not set", s.TokenVar)
		}
		return mcpclient.Dial(ctx, s.Remote, s.Startup)
	}
	if s.Pin != nil {
		if err := s.Pin.Check(s.Launch); err != nil {
			return nil, err
		}
	}
	return mcpclient.Start(ctx, mcpclient.Spec{Command: s.Command, Args: s.Args, Dir: s.Dir, Env: s.Env, Grace: grace}, s.Startup)
}

// List starts the server, lists its tools and stops it.
func List(ctx context.Context, s Spec) (Answer, error) {
	sess, err := Start(ctx, s, ListGrace)
	if err != nil {
		return Answer{}, fmt.Errorf("cannot start %s: %w", s.CommandLine(), err)
	}
	defer sess.Close()
	return list(ctx, sess, s)
}

// list lists the tools of a running server, under its tool timeout.
func list(ctx context.Context, sess *mcpclient.Session, s Spec) (Answer, error) {
	lctx, cancel := context.WithTimeout(ctx, s.ToolTimeout)
	defer cancel()
	tools, err := sess.Tools(lctx)
	if err != nil {
		msg := err.Error()
		if last := sess.Stderr.LastLine(); last != "" {
			msg += "; it said: " + last
		}
		return Answer{}, &Error{Msg: fmt.Sprintf("%s: %s", s.CommandLine(), msg), Err: err}
	}
	return Answer{ServerInfo: sess.Info, Tools: tools}, nil
}

// call calls tool on a running server under the server's tool timeout.
func call(ctx context.Context, sess *mcpclient.Session, s Spec, tool string, args json.RawMessage, meta map[string]any) (*mcp.CallToolResult, error) {
	cctx, cancel := context.WithTimeout(ctx, s.ToolTimeout)
	defer cancel()
	res, err := sess.Call(cctx, tool, args, meta)
	if err == nil {
		return res, nil
	}
	select {
	case <-sess.Done():
		msg := fmt.Sprintf("the server %s ended during the call", s.Name)
		if last := sess.Stderr.LastLine(); last != "" {
			msg += "; it said: " + last
		}
		return nil, &Error{Msg: msg, Err: err}
	default:
	}
	if errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, &Error{Msg: fmt.Sprintf("%s: no answer within %v", tool, s.ToolTimeout), Err: context.DeadlineExceeded}
	}
	return nil, err
}

// Error is a server's failure, with its cause.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }
