// Derived from mcphost v0.34.0 (github.com/mark3labs/mcphost), MIT License,
// Copyright (c) 2024 Mark III Labs, LLC: the permission notice of its
// LICENSE (beside go.mod here) applies to this file.

package tools

// The mcphost port's own test (strata's internal/bench/mcphostport.sh runs
// it when MCPHOSTPORT_EVERYTHING names server-everything's entry point):
// mcphost's tool manager, ported onto strata, lists and calls the tools of
// a real MCP server and of a builtin one, and a server that fails loses
// its own tools alone.

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"charm.land/fantasy"

	"github.com/mark3labs/mcphost/internal/config"
)

func TestStrataPort(t *testing.T) {
	everything := os.Getenv("MCPHOSTPORT_EVERYTHING")
	if everything == "" {
		t.Skip("MCPHOSTPORT_EVERYTHING (server-everything's dist/index.js) is not set")
	}
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("XDG_CACHE_HOME", dir+"/cache")
	t.Setenv("XDG_CONFIG_HOME", dir+"/config")
	t.Chdir(dir)
	cfg := &config.Config{MCPServers: map[string]config.MCPServerConfig{
		"everything": {Type: "local", Command: []string{"node", everything, "stdio"}},
		"todo":       {Type: "builtin", Name: "todo"},
		"broken":     {Type: "local", Command: []string{"/bin/sh", "-c", "exit 3"}},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m := NewMCPToolManager()
	m.SetModel(fakeModel{})
	if err := m.LoadTools(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	loaded := m.GetLoadedServerNames()
	slices.Sort(loaded)
	if !slices.Equal(loaded, []string{"everything", "todo"}) {
		t.Errorf("loaded servers %q, want everything and todo", loaded)
	}
	byName := map[string]fantasy.AgentTool{}
	for _, tool := range m.GetTools() {
		byName[tool.Info().Name] = tool
	}
	for name, tc := range map[string]struct{ input, want string }{
		"everything__echo": {`{"message":"hello from the port"}`, "hello from the port"},
		"todo__todowrite":  {`{"todos":[{"id":"1","content":"port mcphost","status":"pending","priority":"high"}]}`, "port mcphost"},
		// server-everything asks mcphost's model, which answers through
		// strata.Sampling as it answered through mcp-go's client
		"everything__trigger-sampling-request": {`{"prompt":"Say hi"}`, "fake-model said: Resource trigger-sampling-request context: Say hi"},
	} {
		tool, ok := byName[name]
		if !ok {
			t.Errorf("no tool %s among %d", name, len(byName))
			continue
		}
		res, err := tool.Run(ctx, fantasy.ToolCall{Name: name, Input: tc.input})
		if err != nil || res.IsError || !strings.Contains(res.Content, tc.want) {
			t.Errorf("%s: %+v, %v; want a result holding %q", name, res, err, tc.want)
		}
	}
}

// fakeModel is mcphost's model in the test: it answers with what it was
// asked last, and its name.
type fakeModel struct{ fantasy.LanguageModel }

func (fakeModel) Model() string { return "fake-model" }

func (fakeModel) Generate(_ context.Context, call fantasy.Call) (*fantasy.Response, error) {
	last := call.Prompt[len(call.Prompt)-1]
	text := ""
	for _, p := range last.Content {
		if t, ok := fantasy.AsMessagePart[fantasy.TextPart](p); ok {
			text += t.Text
		}
	}
	return &fantasy.Response{Content: fantasy.ResponseContent{fantasy.TextContent{Text: "fake-model said: " + text}}}, nil
}
