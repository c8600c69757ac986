// Derived from mcphost v0.34.0 (github.com/mark3labs/mcphost), MIT License,
// Copyright (c) 2024 Mark III Labs, LLC: the permission notice of its
// LICENSE (beside go.mod here) applies to this file.

package tools

// This file is mcphost's internal/tools/mcp.go ported onto strata (the
// mcphost port of strata's internal/bench/mcphostport.sh): the MCP servers
// of mcphost's config become a layer of strata's model, strata starts them,
// lists and names their tools (server__tool) and calls them; mcphost's
// builtin servers (mcp-go servers) are served in its process through
// strata.InProcess. Its connection pool (connection_pool.go) is gone:
// strata keeps the servers it started running until Close.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"charm.land/fantasy"
	"github.com/mark3labs/mcp-go/server"
	"github.com/strata-config/strata"
	sconfig "github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/trust"

	"github.com/mark3labs/mcphost/internal/builtin"
	"github.com/mark3labs/mcphost/internal/config"
)

// MCPToolManager manages the tools of mcphost's MCP servers through a
// strata workspace.
type MCPToolManager struct {
	ws          *strata.Workspace[sconfig.Partial, sconfig.Config]
	tools       []fantasy.AgentTool
	loaded      []string
	model       fantasy.LanguageModel
	debugLogger DebugLogger
}

// NewMCPToolManager creates a new MCP tool manager instance.
func NewMCPToolManager() *MCPToolManager {
	return &MCPToolManager{tools: make([]fantasy.AgentTool, 0)}
}

// SetModel sets the LLM model for sampling support, which the builtin
// servers may use too.
func (m *MCPToolManager) SetModel(model fantasy.LanguageModel) {
	m.model = model
}

// SetDebugLogger sets the debug logger for the tool manager.
func (m *MCPToolManager) SetDebugLogger(logger DebugLogger) {
	m.debugLogger = logger
}

// strataLayer is mcphost's mcpServers as a layer of strata's model.
type strataLayer struct {
	MCPServers map[string]strataServer `toml:"mcp_servers"`
}

type strataServer struct {
	Command       string            `toml:"command"`
	Args          []string          `toml:"args"`
	Env           map[string]string `toml:"env"`
	URL           string            `toml:"url"`
	Headers       map[string]string `toml:"headers"`
	EnabledTools  []string          `toml:"enabled_tools"`
	DisabledTools []string          `toml:"disabled_tools"`
}

// layerOf is the servers of cfg as strata's layer, and the builtin ones,
// which strata reaches in mcphost's process.
func layerOf(cfg *config.Config) (strataLayer, map[string]config.MCPServerConfig) {
	layer := strataLayer{MCPServers: map[string]strataServer{}}
	builtins := map[string]config.MCPServerConfig{}
	for name, s := range cfg.MCPServers {
		out := strataServer{EnabledTools: s.AllowedTools, DisabledTools: s.ExcludedTools}
		switch s.GetTransportType() {
		case "inprocess":
			builtins[name] = s
		case "sse", "streamable":
			out.URL = s.URL
			for _, h := range s.Headers {
				if k, v, ok := strings.Cut(h, ":"); ok {
					if out.Headers == nil {
						out.Headers = map[string]string{}
					}
					out.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
				}
			}
		default:
			if len(s.Command) > 0 {
				out.Command, out.Args = s.Command[0], s.Command[1:]
				if len(s.Command) == 1 {
					out.Args = s.Args
				}
			}
			for k, v := range s.Environment {
				if out.Env == nil {
					out.Env = map[string]string{}
				}
				out.Env[k] = v
			}
			for k, v := range s.Env {
				if out.Env == nil {
					out.Env = map[string]string{}
				}
				out.Env[k] = fmt.Sprint(v)
			}
		}
		layer.MCPServers[name] = out
	}
	return layer, builtins
}

// serveBuiltin serves the builtin server of s in this process, at one end
// of a pipe, until strata closes the other.
func (m *MCPToolManager) serveBuiltin(s config.MCPServerConfig) func(ctx context.Context) (io.ReadWriteCloser, error) {
	return func(context.Context) (io.ReadWriteCloser, error) {
		srv, err := builtin.NewRegistry().CreateServer(s.Name, s.Options, m.model)
		if err != nil {
			return nil, fmt.Errorf("failed to create builtin server: %v", err)
		}
		ours, theirs := net.Pipe()
		go func() {
			_ = server.NewStdioServer(srv.GetServer()).Listen(context.Background(), theirs, theirs)
			theirs.Close()
		}()
		return ours, nil
	}
}

// LoadTools opens strata's workspace with mcphost's servers and resolves
// their tools. A server that fails loses its own tools, with a warning;
// it is an error only when every server failed.
func (m *MCPToolManager) LoadTools(ctx context.Context, cfg *config.Config) error {
	if m.debugLogger == nil {
		m.debugLogger = NewSimpleDebugLogger(cfg.Debug)
	}
	layer, builtins := layerOf(cfg)
	src := load.Typed("~/.mcphost.yml", &layer)
	src.Above = load.KindUser
	environ := os.Environ()
	opts := []strata.Option{strata.Name("mcphost"), strata.Environ(environ), strata.Sources(src),
		strata.ToolNames(sconfig.ServerNames), strata.InheritEnv(), strata.StartInWorkspace(), strata.Unattended(),
		strata.CacheDir(strata.DefaultCacheDir("mcphost", environ)),
		strata.TrustStore(&trust.Store{Path: trust.DefaultPath("mcphost", environ)})}
	for name, s := range builtins {
		opts = append(opts, strata.InProcess(name, m.serveBuiltin(s)))
	}
	if m.model != nil {
		// mcphost answers its servers' sampling requests with its model
		opts = append(opts, strata.Sampling((&samplingHandler{model: m.model}).answer))
	}
	ws, err := strata.Open[sconfig.Partial](ctx, sconfig.Default(), opts...)
	if err != nil {
		return err
	}
	m.ws = ws
	warn := func(err error) {
		for _, p := range diag.All(err) {
			fmt.Printf("Warning: %v\n", p)
		}
	}
	for _, w := range ws.Warnings() {
		warn(w)
	}
	cat, err := ws.Resolve(ctx)
	if cat == nil {
		return err
	}
	failed := map[string]bool{}
	if pe := (*strata.PartialError)(nil); errors.As(err, &pe) {
		warn(err)
		for _, s := range pe.Servers {
			failed[s.Server] = true
		}
	}
	for _, w := range cat.Warnings {
		warn(w)
	}
	for name := range cfg.MCPServers {
		if !failed[name] {
			m.loaded = append(m.loaded, name)
		}
	}
	if len(cfg.MCPServers) > 0 && len(m.loaded) == 0 {
		return fmt.Errorf("all MCP servers failed to load: %v", err)
	}
	for _, d := range cat.Tools {
		schema := map[string]any{}
		_ = json.Unmarshal(convertExclusiveBoundsToBoolean(d.InputSchema.JSON()), &schema)
		params, _ := schema["properties"].(map[string]any)
		if params == nil {
			params = map[string]any{}
		}
		m.tools = append(m.tools, &mcpFantasyTool{
			toolInfo: fantasy.ToolInfo{Name: d.Name, Description: d.Description, Parameters: params, Required: d.InputSchema.Required()},
			ws:       ws,
		})
	}
	return nil
}

// GetTools returns all loaded tools as fantasy AgentTools, named
// serverName__toolName.
func (m *MCPToolManager) GetTools() []fantasy.AgentTool {
	return m.tools
}

// GetLoadedServerNames returns the names of the MCP servers whose tools
// were listed.
func (m *MCPToolManager) GetLoadedServerNames() []string {
	return m.loaded
}

// Close stops the MCP servers strata started.
func (m *MCPToolManager) Close() error {
	if m.ws == nil {
		return nil
	}
	return m.ws.Close()
}

// convertExclusiveBoundsToBoolean converts JSON Schema draft-07 style exclusive bounds
// (where exclusiveMinimum/exclusiveMaximum are numbers) to draft-04 style
// (where they are booleans that modify minimum/maximum).
func convertExclusiveBoundsToBoolean(schemaJSON []byte) []byte {
	var data map[string]any
	if err := json.Unmarshal(schemaJSON, &data); err != nil {
		return schemaJSON
	}

	convertSchemaRecursive(data)

	result, err := json.Marshal(data)
	if err != nil {
		return schemaJSON
	}
	return result
}

// convertSchemaRecursive recursively processes a schema map and converts
// numeric exclusiveMinimum/exclusiveMaximum to boolean format.
func convertSchemaRecursive(schema map[string]any) {
	if exMin, ok := schema["exclusiveMinimum"]; ok {
		if num, isNum := exMin.(float64); isNum {
			schema["minimum"] = num
			schema["exclusiveMinimum"] = true
		}
	}

	if exMax, ok := schema["exclusiveMaximum"]; ok {
		if num, isNum := exMax.(float64); isNum {
			schema["maximum"] = num
			schema["exclusiveMaximum"] = true
		}
	}

	if props, ok := schema["properties"].(map[string]any); ok {
		for _, prop := range props {
			if propSchema, ok := prop.(map[string]any); ok {
				convertSchemaRecursive(propSchema)
			}
		}
	}

	if items, ok := schema["items"].(map[string]any); ok {
		convertSchemaRecursive(items)
	}

	if addProps, ok := schema["additionalProperties"].(map[string]any); ok {
		convertSchemaRecursive(addProps)
	}

	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if arr, ok := schema[key].([]any); ok {
			for _, item := range arr {
				if itemSchema, ok := item.(map[string]any); ok {
					convertSchemaRecursive(itemSchema)
				}
			}
		}
	}

	if not, ok := schema["not"].(map[string]any); ok {
		convertSchemaRecursive(not)
	}
}
