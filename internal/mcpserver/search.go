package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/resolve"
)

// Deferred loading: the tools whose load is "deferred" are not listed;
// one tool, search_tools ([export.SearchTool]), finds them by words or a
// regular expression, answers with their definitions, and adds them to
// the tools served, which the SDK announces to the client with
// notifications/tools/list_changed. A tool found stays served while the
// server runs, across reloads. The tools served are the server's, for
// every session: a server of many clients (HTTP) that gives each its own
// set needs them per session.

// addSearchTool adds search_tools to the tools to serve, unless a tool of
// the catalog has its name (then the deferred tools cannot be found, and
// Warn says so).
func (s *Server) addSearchTool(want map[string]*mcp.Tool, wantJSON map[string]string, wire map[string]json.RawMessage) {
	if _, taken := want[export.SearchTool]; taken {
		s.warn(fmt.Errorf("%d tools are deferred, and a tool of the catalog is named %s: they cannot be found; rename that tool", len(s.deferred), export.SearchTool))
		return
	}
	d := export.SearchDefinition()
	w := export.MCPToolJSON(d)
	t, err := tool(d, w)
	if err != nil {
		panic(err) // its schema is strata's own
	}
	wire[d.Name] = w
	want[d.Name], wantJSON[d.Name] = t, string(w)
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
// query describes, serves them, and gives their definitions.
func (s *Server) searchHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args searchArgs
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil || args.Query == "" {
		return text(true, `search_tools takes {"query": "words or a regular expression", "regex": false, "limit": 5}`), nil
	}
	if args.Limit > 20 {
		args.Limit = 20
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	found, err := resolve.Search(s.deferred, args.Query, args.Regex, args.Limit)
	if err != nil {
		return text(true, err.Error()), nil
	}
	res := searchResult{Found: []searchFound{}, Tools: []json.RawMessage{}}
	if s.revealed == nil {
		s.revealed = map[string]bool{}
	}
	for _, d := range found {
		raw := export.MCPToolJSON(d)
		t, err := tool(d, raw)
		if err != nil {
			s.warn(err)
			continue
		}
		res.Found = append(res.Found, searchFound{Name: d.Name, Summary: d.Summary})
		res.Tools = append(res.Tools, raw)
		if s.revealed[d.Name] {
			continue
		}
		s.revealed[d.Name] = true
		s.wire[d.Name], s.served[d.Name] = raw, string(raw)
		s.mcp.AddTool(t, s.handler(d.Name))
	}
	rest := s.deferred[:0:0]
	for _, d := range s.deferred {
		if !s.revealed[d.Name] {
			rest = append(rest, d)
		}
	}
	s.deferred = rest
	if len(found) == 0 {
		res.Note = "no deferred tool matches; try other words, or regex = true"
	}
	b, _ := json.Marshal(res)
	return text(false, string(b)), nil
}
