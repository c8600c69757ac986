// Derived from mcphost v0.34.0 (github.com/mark3labs/mcphost), MIT License,
// Copyright (c) 2024 Mark III Labs, LLC: the permission notice of its
// LICENSE (beside go.mod here) applies to this file.

package tools

// This file is mcphost's internal/tools/fantasy_adapter.go ported onto
// strata: a tool call goes through strata's workspace (Workspace.Call),
// which checks the arguments against the tool's schema and calls the
// server strata started.

import (
	"context"
	"encoding/json"
	"fmt"

	"charm.land/fantasy"
	"github.com/strata-config/strata"
	sconfig "github.com/strata-config/strata/config"
)

// mcpFantasyTool adapts a tool of strata's catalog to fantasy.AgentTool.
type mcpFantasyTool struct {
	toolInfo        fantasy.ToolInfo
	ws              *strata.Workspace[sconfig.Partial, sconfig.Config]
	providerOptions fantasy.ProviderOptions
}

// Info returns the fantasy tool info including name, description, and parameter schema.
func (t *mcpFantasyTool) Info() fantasy.ToolInfo {
	return t.toolInfo
}

// Run calls the tool through strata and gives the server's result as
// JSON text, an error result when the tool said so.
func (t *mcpFantasyTool) Run(ctx context.Context, call fantasy.ToolCall) (fantasy.ToolResponse, error) {
	input := call.Input
	if input == "" {
		input = "{}"
	}
	if !json.Valid([]byte(input)) {
		return fantasy.NewTextErrorResponse(fmt.Sprintf("invalid JSON arguments: %s", input)), nil
	}
	res, err := t.ws.Call(ctx, t.toolInfo.Name, json.RawMessage(input))
	if err != nil {
		return fantasy.ToolResponse{}, fmt.Errorf("failed to call mcp tool: %w", err)
	}
	if res.MCP != nil {
		if res.MCP.IsError {
			return fantasy.NewTextErrorResponse(string(res.MCP.Raw)), nil
		}
		return fantasy.NewTextResponse(string(res.MCP.Raw)), nil
	}
	b, err := json.Marshal(res.Outcome)
	if err != nil {
		return fantasy.ToolResponse{}, fmt.Errorf("failed to marshal tool result: %w", err)
	}
	return fantasy.NewTextResponse(string(b)), nil
}

// ProviderOptions returns provider-specific options for this tool.
func (t *mcpFantasyTool) ProviderOptions() fantasy.ProviderOptions {
	return t.providerOptions
}

// SetProviderOptions sets provider-specific options for this tool.
func (t *mcpFantasyTool) SetProviderOptions(opts fantasy.ProviderOptions) {
	t.providerOptions = opts
}
