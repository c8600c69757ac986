package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/resolve"
)

// Deferred loading: the tools whose load is "deferred" are not listed;
// one tool, search_tools ([export.SearchTool]), finds them by words or a
// regular expression, answers with their definitions, and lists them to
// the session that found them from then on (across reloads), which is
// told so with notifications/tools/list_changed. What one session found
// is its own: over HTTP, another client's list does not change, and its
// own search finds the same tools. A request without a session (protocol
// 2026-07-28 over HTTP, where the request is its own session) has nowhere
// to keep what it found: it gets the definitions alone. Any client may
// call a deferred tool: it is in the catalog, and its search keeps it out
// of the model's context, not out of reach.
//
// The SDK's server lists the same tools to every session, and tells
// every session when they change: the tools/list of a session leaves out
// the deferred tools it did not find (listedTo), and a session is told
// its tools changed only when they did for it (toolsChangedFilter).

// view is what a session found, and was told.
type view struct {
	found   map[string]bool // the deferred tools it found
	pending bool            // it found some since it was last told
	told    uint64          // the toolsGen it was last told of
}

// viewOf is the view of ss, made (and forgotten when ss ends) when it
// has none; s.mu is held.
func (s *Server) viewOf(ss *mcp.ServerSession) *view {
	v := s.views[ss]
	if v == nil {
		if s.views == nil {
			s.views = map[*mcp.ServerSession]*view{}
		}
		v = &view{found: map[string]bool{}, told: s.toolsGen}
		s.views[ss] = v
		go func() {
			_ = ss.Wait()
			s.mu.Lock()
			delete(s.views, ss)
			s.mu.Unlock()
		}()
	}
	return v
}

// watchTools gives a session a view when it may be told its tools
// changed (a session that initializes, a listen of protocol 2026-07-28),
// so that it is told of changes to its tools alone.
func (s *Server) watchTools(method string, req mcp.Request) {
	if method != "initialize" && method != "subscriptions/listen" {
		return
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		s.mu.Lock()
		s.viewOf(ss)
		s.mu.Unlock()
	}
}

// listedTo is tools, as listed to the session ss: without the deferred
// tools it did not find (must hold s.mu: the deferred tools are those of
// the catalog the tools were listed from).
func (s *Server) listedTo(ss mcp.Session, tools []*mcp.Tool) []*mcp.Tool {
	if len(s.isDeferred) == 0 {
		return tools
	}
	var found map[string]bool
	if sess, ok := ss.(*mcp.ServerSession); ok && s.views[sess] != nil {
		found = s.views[sess].found
	}
	out := make([]*mcp.Tool, 0, len(tools))
	for _, t := range tools {
		if !s.isDeferred[t.Name] || found[t.Name] {
			out = append(out, t)
		}
	}
	return out
}

// toolsChangedFilter passes notifications/tools/list_changed on to a
// session only when its tools changed: the catalog's, or those it found.
func (s *Server) toolsChangedFilter(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/tools/list_changed" {
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && !s.tell(ss) {
				return nil, nil
			}
		}
		return next(ctx, method, req)
	}
}

// tell reports whether the tools of ss changed since it was last told,
// and counts it told.
func (s *Server) tell(ss *mcp.ServerSession) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.views[ss]
	if v == nil {
		return true
	}
	changed := v.pending || v.told != s.toolsGen
	v.pending, v.told = false, s.toolsGen
	return changed
}

// addSearchTool adds search_tools to the tools to serve, and reports
// whether it did: not when a tool of the catalog has its name (then that
// tool is served under it, the deferred tools cannot be found, and Warn
// says so).
func (s *Server) addSearchTool(want map[string]*mcp.Tool, wire map[string]json.RawMessage) bool {
	if _, taken := want[export.SearchTool]; taken {
		s.warn(fmt.Errorf("%s deferred, and a tool of the catalog is named %s: deferred tools cannot be found; rename that tool", diag.Counted(len(s.deferred), "tool"), export.SearchTool))
		return false
	}
	d := export.SearchDefinition()
	t, err := tool(d)
	if err != nil {
		panic(err) // its schema is strata's own
	}
	want[d.Name], wire[d.Name] = t, export.MCPToolJSON(d)
	return true
}

// searchArgs are the arguments of search_tools.
type searchArgs struct {
	Query string `json:"query"`
	Regex bool   `json:"regex"`
	Limit int    `json:"limit"`
}

// searchResult is what search_tools answers: each tool found, its summary
// first, then the definitions, as tools/list gives them.
type searchResult struct {
	Found []searchFound     `json:"found"`
	Tools []json.RawMessage `json:"tools"`
	Note  string            `json:"note,omitempty"`
}

type searchFound struct {
	Name    string `json:"name"`
	Summary string `json:"summary"`
}

// searchHandler answers search_tools: it finds the deferred tools the
// query describes that the session did not find yet, lists them to it,
// and gives their definitions.
func (s *Server) searchHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args searchArgs
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args.Query == "" {
		return text(true, `search_tools takes {"query": "words or a regular expression", "regex": false, "limit": 5}`), nil
	}
	if args.Limit > 20 {
		args.Limit = 20
	}
	s.mu.Lock()
	var v *view
	if ss := req.Session; ss != nil && (ss.ID() != "" || !overHTTP(ctx)) {
		v = s.viewOf(ss) // a session that lasts: over stdio, or with an id
	}
	candidates := s.deferred
	if v != nil {
		candidates = make([]resolve.Definition, 0, len(s.deferred))
		for _, d := range s.deferred {
			if !v.found[d.Name] {
				candidates = append(candidates, d)
			}
		}
	}
	found, err := resolve.Search(candidates, args.Query, args.Regex, args.Limit)
	if err != nil {
		s.mu.Unlock()
		return text(true, err.Error()), nil
	}
	res := searchResult{Found: []searchFound{}, Tools: []json.RawMessage{}}
	for _, d := range found {
		res.Found = append(res.Found, searchFound{Name: d.Name, Summary: d.Summary})
		res.Tools = append(res.Tools, s.wire[d.Name])
		if v != nil {
			v.found[d.Name] = true
			v.pending = true
		}
	}
	search := s.searchTool
	s.mu.Unlock()
	if v != nil && len(found) > 0 && search != nil {
		// The SDK tells every session that the tools changed when one is
		// added (search_tools again, as it was); toolsChangedFilter
		// passes it on to this session alone.
		s.mcp.AddTool(search, s.searchHandler)
	}
	if len(found) == 0 {
		res.Note = "no deferred tool matches; try other words, or regex = true"
	}
	b, _ := json.Marshal(res)
	return text(false, string(b)), nil
}

// overHTTP reports whether the request of ctx came over HTTP.
func overHTTP(ctx context.Context) bool {
	_, ok := tokenOf(ctx)
	return ok
}
