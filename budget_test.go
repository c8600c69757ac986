package strata_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcptest"
)

// budgetConfig is a workspace of server-everything, whose tools load
// when a search finds them, and a tool the config describes, always
// loaded; the set "notes" is what clients named notes-* get.
func budgetConfig(t *testing.T) string {
	return everythingServer(t) + `load = "deferred"

[tools.note]
command = "/bin/echo {{tool}}"
summary = "Write a note."
parameters.text = { type = "string", required = true }

[toolsets.notes]
tools = ["note"]
clients = ["notes-*"]
`
}

// TestServeFindsDeferredTool: a client of strata serve (the Go SDK's)
// sees the always-loaded tools and search_tools, finds a deferred tool of
// server-everything with it, is told the list changed, and calls it.
func TestServeFindsDeferredTool(t *testing.T) {
	s := newSetup(t, nil)
	s.writeRepoConfig(t, budgetConfig(t))
	changed := make(chan struct{}, 8)
	cs := s.serveProcess(t, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	if diff := cmp.Diff([]string{"note", "search_tools"}, sortedNames(toolNames(t, cs))); diff != "" {
		t.Fatalf("tools before a search (-want +got):\n%s", diff)
	}
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "echo back the message"}})
	if err != nil || res.IsError {
		t.Fatalf("search_tools: %v %s", err, mcptest.Text(res))
	}
	var found struct {
		Found []struct{ Name, Summary string }
		Tools []json.RawMessage
	}
	if err := json.Unmarshal([]byte(mcptest.Text(res)), &found); err != nil || len(found.Found) == 0 || found.Found[0].Name != "echo" || len(found.Tools) != len(found.Found) {
		t.Fatalf("search_tools found %+v (%v)", found, err)
	}
	select {
	case <-changed:
	case <-time.After(time.Minute): // a safety net: the wait is for the event
		t.Fatal("no notifications/tools/list_changed after the search")
	}
	if names := sortedNames(toolNames(t, cs)); !slices.Contains(names, "echo") || !slices.Contains(names, "search_tools") {
		t.Fatalf("tools after the search: %v", names)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "deferred"}})
	if err != nil || res.IsError || !strings.Contains(mcptest.Text(res), "deferred") {
		t.Fatalf("echo: %v %s", err, mcptest.Text(res))
	}
}

// TestServeClientToolset: a client whose name a set's clients match gets
// that set; another client the run's (every tool).
func TestServeClientToolset(t *testing.T) {
	s := newSetup(t, nil)
	s.writeRepoConfig(t, budgetConfig(t))
	for _, tt := range []struct {
		client string
		want   []string
	}{
		{"notes-app", []string{"note"}},
		{"other", []string{"note", "search_tools"}},
	} {
		t.Run(tt.client, func(t *testing.T) {
			cs := s.serveProcessAs(t, tt.client, nil)
			if diff := cmp.Diff(tt.want, sortedNames(toolNames(t, cs))); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

// writeRepoConfig writes the workspace file of s's repository.
func (s *setup) writeRepoConfig(t *testing.T, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.repo, ".strata", "config.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sortedNames(names []string) []string {
	slices.Sort(names)
	return names
}

// TestServeDeferredToolFollowsItsRules: a deferred tool a client found
// with search_tools and calls by its own name is decided by its own rules
// on its own arguments, with the decision in the result's _meta.
func TestServeDeferredToolFollowsItsRules(t *testing.T) {
	s := newSetup(t, nil)
	s.writeRepoConfig(t, budgetConfig(t)+`
[tools.echo.policy]
run = [{ arg = "/message", prefix = "secret", mode = "skip", reason = "no secrets" }, { mode = "unattended" }]
`)
	cs := s.serveProcess(t, nil)
	ctx := context.Background()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "echo back the message"}}); err != nil || res.IsError {
		t.Fatalf("search_tools: %v %s", err, mcptest.Text(res))
	}
	for _, c := range []struct {
		message, outcome string
		isError          bool
	}{{"secret plans", "skip", true}, {"hello", "run", false}} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": c.message}})
		if err != nil || res.IsError != c.isError {
			t.Fatalf("echo %q: %v, isError %v: %s", c.message, err, res.IsError, mcptest.Text(res))
		}
		if c.isError && !strings.Contains(mcptest.Text(res), "the config says skip (tools.echo.policy.run.0: no secrets)") {
			t.Errorf("echo %q: %s", c.message, mcptest.Text(res))
		}
		d, _ := res.Meta["strata/decision"].(map[string]any)
		if d["outcome"] != c.outcome || d["tool"] != "echo" || d["source"] != "mcp.everything" {
			t.Errorf("echo %q: the decision in _meta: %v", c.message, res.Meta["strata/decision"])
		}
	}
}
