package resolve

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/kballard/go-shellquote"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/partial"
)

// mcpAnswer is what the cache keeps of an MCP server: who it said it was,
// and its tools, schemas byte for byte.
type mcpAnswer struct {
	ServerInfo *mcp.Implementation `json:"serverInfo,omitempty"`
	Tools      []mcpclient.Tool    `json:"tools"`
}

// mcpServers discovers the tools of the servers the config needs, all at
// once: from the cache when it has them (no server starts), otherwise by
// starting them. With Refresh, a server whose tools differ from the cached
// ones is reported.
func (s *session) mcpServers(c config.Config) {
	servers := s.wantedServers(c)
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	if s.r.Servers != nil {
		keep := map[string]bool{}
		for _, name := range names {
			keep[s.serverID(name, servers[name])] = true
		}
		defer s.r.Servers.retain(keep)
	}
	if len(servers) == 0 {
		return
	}
	var mu sync.Mutex
	s.mcp = map[string]map[string]Discovered{}
	procs.Each(s.ctx, len(names), len(names), func(ctx context.Context, i int) {
		name := names[i]
		tools, err := s.mcpServer(ctx, name, servers[name])
		if err != nil {
			e := &diag.Error{Path: partial.Path{"mcp_servers", name}, Msg: err.Error()}
			if servers[name].Optional {
				e.Source = "skipped"
				e.Msg += " (the server is optional: its tools are left out)"
				s.warn(e)
			} else {
				s.fail(e)
			}
			return
		}
		mu.Lock()
		s.mcp[name] = tools
		mu.Unlock()
	})
}

// wantedServers returns the servers that configured tools use or that
// expose tools, whose programs may run.
func (s *session) wantedServers(c config.Config) map[string]config.MCPServer {
	wanted := map[string]bool{}
	for _, name := range c.Tools.Names() {
		t := c.Tools[name]
		if e, _ := c.Tools.Effective(name); t.Source.Kind == config.SourceMCP && e.Enabled() {
			wanted[t.Source.Server] = true
		}
	}
	for name, srv := range c.MCPServers {
		if !srv.Expose.IsZero() {
			wanted[name] = true
		}
	}
	out := map[string]config.MCPServer{}
	for name := range wanted {
		srv, ok := c.MCPServers[name]
		if !ok {
			continue // Config.Validate reports it
		}
		if s.r.MCPTransport == nil && !s.allow(partial.Path{"mcp_servers", name, "command"}, s.lookPath(srv.Command)) {
			s.held["mcp."+name] = true
			continue
		}
		out[name] = srv
	}
	return out
}

// mcpServer returns the tools of one server, by name.
func (s *session) mcpServer(ctx context.Context, name string, srv config.MCPServer) (map[string]Discovered, error) {
	key, keyErr := s.mcpKey(srv)
	var cached []byte
	if keyErr == nil && s.r.MCPTransport == nil {
		cached, _ = s.r.Cache.get(key)
	}
	if cached != nil && !s.r.Refresh {
		var a mcpAnswer
		if json.Unmarshal(cached, &a) == nil {
			return toolsOf(a), nil
		}
	}
	if s.r.Offline {
		return nil, fmt.Errorf("its tools are not in the cache, and offline mode starts no server")
	}
	var a mcpAnswer
	if s.r.Servers != nil {
		l, started, err := s.liveServer(ctx, name, srv)
		if err != nil {
			return nil, fmt.Errorf("cannot start %s: %v", commandLine(srv), err)
		}
		l.mu.Lock()
		if !started {
			if fresh, err := s.list(ctx, l.sess, srv); err == nil {
				l.answer = fresh
			}
		}
		a = l.answer
		l.mu.Unlock()
	} else {
		var err error
		if a, err = s.listTools(ctx, name, srv); err != nil {
			return nil, err
		}
	}
	answer, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	if cached != nil && !jsonv.Equal(jsonv.MustParse(string(cached)), jsonv.MustParse(string(answer))) {
		s.warn(&diag.Error{Source: "changed", Path: partial.Path{"mcp_servers", name}, Msg: "the server's tools differ from those cached; the cache now holds the new ones"})
	}
	if keyErr == nil && s.r.MCPTransport == nil {
		if err := s.r.Cache.put(key, answer); err != nil {
			s.warn(&diag.Error{Source: "cache", Msg: err.Error()})
		}
	}
	return toolsOf(a), nil
}

// mcpKey is the cache key of a server: its program's content, its
// arguments, environment and directory.
func (s *session) mcpKey(srv config.MCPServer) (cacheKey, error) {
	exe := s.lookPath(s.absolute(srv.Command))
	key, err := s.r.Cache.fingerprint(exe)
	if err != nil {
		return cacheKey{}, err
	}
	key.Protocol = ProtocolMCP
	key.Argv = append([]string{srv.Command}, srv.Args...)
	key.Env = s.serverEnv(srv)
	key.Dir = s.serverDir(srv)
	return key, nil
}

func (s *session) serverEnv(srv config.MCPServer) []string {
	return procs.Env(s.environ, srv.Env, srv.EnvVars)
}

func (s *session) serverDir(srv config.MCPServer) string {
	switch {
	case srv.Cwd == "":
		return s.root
	case filepath.IsAbs(srv.Cwd):
		return srv.Cwd
	}
	return filepath.Join(s.root, srv.Cwd)
}

// discoveryGrace is how long a server that only listed its tools may take
// to exit once its stdin closes, and again after SIGTERM: it has nothing to
// finish, and resolution waits for it.
const discoveryGrace = 10 * time.Millisecond

// listTools starts a server, lists its tools and stops it.
func (s *session) listTools(ctx context.Context, name string, srv config.MCPServer) (mcpAnswer, error) {
	sess, err := s.startServer(ctx, name, srv, discoveryGrace)
	if err != nil {
		return mcpAnswer{}, fmt.Errorf("cannot start %s: %v", commandLine(srv), err)
	}
	defer sess.Close()
	return s.list(ctx, sess, srv)
}

// startServer starts a server (or connects to it through MCPTransport).
func (s *session) startServer(ctx context.Context, name string, srv config.MCPServer, grace time.Duration) (*mcpclient.Session, error) {
	startup := time.Duration(srv.StartupTimeoutSec * float64(time.Second))
	if s.r.MCPTransport != nil {
		t, err := s.r.MCPTransport(ctx, name, srv)
		if err != nil {
			return nil, err
		}
		return mcpclient.Connect(ctx, t, startup)
	}
	s.started.Add(1)
	return mcpclient.Start(ctx, mcpclient.Spec{
		Command: s.absolute(srv.Command), Args: srv.Args, Dir: s.serverDir(srv), Env: s.serverEnv(srv),
		Grace: grace,
	}, startup)
}

// list lists the tools of a server, under its tool timeout.
func (s *session) list(ctx context.Context, sess *mcpclient.Session, srv config.MCPServer) (mcpAnswer, error) {
	lctx, cancel := context.WithTimeout(ctx, toolTimeout(srv))
	defer cancel()
	tools, err := sess.Tools(lctx)
	if err != nil {
		msg := err.Error()
		if last := sess.Stderr.LastLine(); last != "" {
			msg += "; it said: " + last
		}
		return mcpAnswer{}, fmt.Errorf("%s: %s", commandLine(srv), msg)
	}
	return mcpAnswer{ServerInfo: sess.Info, Tools: tools}, nil
}

// toolTimeout is how long a call (or a listing) of a server may take.
func toolTimeout(srv config.MCPServer) time.Duration {
	if srv.ToolTimeoutSec <= 0 {
		return config.DefaultToolTimeoutSec * time.Second
	}
	return time.Duration(srv.ToolTimeoutSec * float64(time.Second))
}

func commandLine(srv config.MCPServer) string {
	return shellquote.Join(append([]string{srv.Command}, srv.Args...)...)
}

func toolsOf(a mcpAnswer) map[string]Discovered {
	out := make(map[string]Discovered, len(a.Tools))
	for _, t := range a.Tools {
		schema := t.InputSchema
		if schema == nil {
			schema = jsonv.MustParse(`{"type":"object"}`)
		}
		out[t.Name] = Discovered{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: schema, OutputSchema: t.OutputSchema, Annotations: t.Annotations}
	}
	return out
}

// exposed returns the definitions of the tools servers expose on their own
// that the config does not name.
func (s *session) exposed(c config.Config) []Definition {
	var out []Definition
	servers := make([]string, 0, len(s.mcp))
	for n := range s.mcp {
		servers = append(servers, n)
	}
	sort.Strings(servers)
	taken := map[string]string{}
	defaults := c.Tools[config.EveryTool]
	for _, server := range servers {
		expose := c.MCPServers[server].Expose
		if expose.IsZero() {
			continue
		}
		names := make([]string, 0, len(s.mcp[server]))
		for n := range s.mcp[server] {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, want := range expose.Tools {
			if _, ok := s.mcp[server][want]; !ok {
				s.fail(&diag.Error{Path: partial.Path{"mcp_servers", server, "expose"}, Msg: fmt.Sprintf("the server has no tool named %s", want), Hint: closestHint(want, names)})
			}
		}
		for _, n := range names {
			if !expose.Has(n) {
				continue
			}
			if _, named := c.Tools[n]; named {
				continue // the config's own entry decides
			}
			if other, dup := taken[n]; dup {
				s.warn(&diag.Error{Source: "skipped", Path: partial.Path{"mcp_servers", server, "expose"}, Msg: fmt.Sprintf("%s is also exposed by the server %s, which is used", n, other)})
				continue
			}
			taken[n] = server
			t, _ := config.Tools{config.EveryTool: defaults, n: {Source: config.Source{Kind: config.SourceMCP, Server: server}}}.Effective(n)
			if !t.Enabled() {
				continue
			}
			if d, ok := s.definition(n, t); ok {
				out = append(out, d)
			}
		}
	}
	return out
}
