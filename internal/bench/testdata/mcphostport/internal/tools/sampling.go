// Derived from mcphost v0.34.0 (github.com/mark3labs/mcphost), MIT License,
// Copyright (c) 2024 Mark III Labs, LLC: the permission notice of its
// LICENSE (beside go.mod here) applies to this file.

package tools

// mcphost's sampling handler (its internal/tools/mcp.go), kept as it was,
// and given to strata: strata.Sampling hands it each request of a server
// as JSON, which it reads with mcp-go's types as mcp-go's client did.

import (
	"context"
	"encoding/json"
	"fmt"

	"charm.land/fantasy"
	"github.com/mark3labs/mcp-go/mcp"
)

// samplingHandler implements the MCP sampling handler interface using a fantasy LanguageModel
type samplingHandler struct {
	model fantasy.LanguageModel
}

// answer is CreateMessage as strata.Sampling takes it: the request's
// params and the result as JSON, read as mcp-go's client reads them (it
// parses each message's content into mcp-go's content types).
func (h *samplingHandler) answer(ctx context.Context, _ string, params json.RawMessage) (json.RawMessage, error) {
	var req mcp.CreateMessageRequest
	if err := json.Unmarshal(params, &req.CreateMessageParams); err != nil {
		return nil, fmt.Errorf("invalid sampling request: %w", err)
	}
	for i, m := range req.Messages {
		if content, ok := m.Content.(map[string]any); ok {
			c, err := mcp.ParseContent(content)
			if err != nil {
				return nil, fmt.Errorf("invalid content of message %d: %w", i, err)
			}
			req.Messages[i].Content = c
		}
	}
	res, err := h.CreateMessage(ctx, req)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// CreateMessage handles sampling requests from MCP servers by forwarding them to the configured LLM model.
// It converts MCP message formats to fantasy message formats, invokes the model for generation,
// and converts the response back to MCP format. Returns an error if no model is available
// or if generation fails.
func (h *samplingHandler) CreateMessage(ctx context.Context, request mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if h.model == nil {
		return nil, fmt.Errorf("no model available for sampling")
	}

	// Build fantasy messages from MCP sampling request
	var messages []fantasy.Message

	// Add system message if provided
	if request.SystemPrompt != "" {
		messages = append(messages, fantasy.NewSystemMessage(request.SystemPrompt))
	}

	// Convert sampling messages
	for _, msg := range request.Messages {
		var content string
		if textContent, ok := msg.Content.(mcp.TextContent); ok {
			content = textContent.Text
		} else {
			content = fmt.Sprintf("%v", msg.Content)
		}

		switch msg.Role {
		case mcp.RoleUser:
			messages = append(messages, fantasy.NewUserMessage(content))
		case mcp.RoleAssistant:
			messages = append(messages, fantasy.Message{
				Role:    fantasy.MessageRoleAssistant,
				Content: []fantasy.MessagePart{fantasy.TextPart{Text: content}},
			})
		default:
			messages = append(messages, fantasy.NewUserMessage(content))
		}
	}

	// Generate response using the fantasy model
	call := fantasy.Call{
		Prompt: fantasy.Prompt(messages),
	}
	response, err := h.model.Generate(ctx, call)
	if err != nil {
		return nil, fmt.Errorf("model generation failed: %w", err)
	}

	// Convert response back to MCP format
	result := &mcp.CreateMessageResult{
		Model:      h.model.Model(),
		StopReason: "endTurn",
	}
	result.SamplingMessage = mcp.SamplingMessage{
		Role: mcp.RoleAssistant,
		Content: mcp.TextContent{
			Type: "text",
			Text: response.Content.Text(),
		},
	}

	return result, nil
}
