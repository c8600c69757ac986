package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Offers are what a server offers beside tools: its resources, resource
// templates and prompts, each list read within a [Budget] of its own
// (the budget's Tools counts the items of the list); a list that goes
// past it keeps its first items, and Cuts says which lists were cut.
type Offers struct {
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt
	// Completions says the server declared completions.
	Completions bool
	// Subscribe says the server declared resource subscriptions.
	Subscribe bool
	// Cuts are the lists that went past the budget, by the method that
	// lists them ("resources/list", say).
	Cuts map[string]*Cut
}

// Offers lists what the server offers beside tools, within b for each
// list. A list the server does not declare is not asked for.
func (s *Session) Offers(ctx context.Context, b Budget) (_ *Offers, err error) {
	defer s.hide(&err)
	b = b.WithDefaults()
	out := &Offers{Cuts: map[string]*Cut{}}
	ir := s.cs.InitializeResult()
	if ir == nil || ir.Capabilities == nil {
		return out, nil
	}
	caps := ir.Capabilities
	out.Completions = caps.Completions != nil
	if caps.Resources != nil {
		out.Subscribe = caps.Resources.Subscribe
		var err error
		out.Resources, err = pages(ctx, b, "resources/list", out.Cuts, func(ctx context.Context, cursor string) ([]*mcp.Resource, string, error) {
			r, err := s.cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		})
		if err != nil {
			return nil, err
		}
		out.Templates, err = pages(ctx, b, "resources/templates/list", out.Cuts, func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, error) {
			r, err := s.cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		})
		if err != nil {
			return nil, err
		}
	}
	if caps.Prompts != nil {
		var err error
		out.Prompts, err = pages(ctx, b, "prompts/list", out.Cuts, func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, error) {
			r, err := s.cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pages reads a paginated list within b: its items, as many as the
// budget's count, of as many bytes (as JSON) as its bytes. A list cut by
// it is recorded in cuts under method.
func pages[T any](ctx context.Context, b Budget, method string, cuts map[string]*Cut, page func(ctx context.Context, cursor string) ([]T, string, error)) ([]T, error) {
	var out []T
	var read int64
	seen := map[string]bool{}
	cursor := ""
	for {
		items, next, err := page(ctx, cursor)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		for _, it := range items {
			if len(out) == b.Tools {
				cuts[method] = &Cut{Kept: len(out), Bytes: read, By: "tools", Bound: int64(b.Tools)}
				return out, nil
			}
			j, err := json.Marshal(it)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", method, err)
			}
			if read+int64(len(j)) > b.Bytes {
				cuts[method] = &Cut{Kept: len(out), Bytes: read, By: "bytes", Bound: b.Bytes}
				return out, nil
			}
			read += int64(len(j))
			out = append(out, it)
		}
		read += int64(len(next))
		if next == "" {
			return out, nil
		}
		if read > b.Bytes {
			cuts[method] = &Cut{Kept: len(out), Bytes: read, By: "bytes", Bound: b.Bytes}
			return out, nil
		}
		if seen[next] {
			return nil, fmt.Errorf("%s repeats the cursor %q", method, next)
		}
		seen[next] = true
		cursor = next
	}
}

// ReadResource reads a resource of the server.
func (s *Session) ReadResource(ctx context.Context, p *mcp.ReadResourceParams) (_ *mcp.ReadResourceResult, err error) {
	defer s.hide(&err)
	return s.cs.ReadResource(ctx, p)
}

// GetPrompt gets a prompt of the server.
func (s *Session) GetPrompt(ctx context.Context, p *mcp.GetPromptParams) (_ *mcp.GetPromptResult, err error) {
	defer s.hide(&err)
	return s.cs.GetPrompt(ctx, p)
}

// Complete asks the server to complete an argument of a prompt or a
// resource template.
func (s *Session) Complete(ctx context.Context, p *mcp.CompleteParams) (_ *mcp.CompleteResult, err error) {
	defer s.hide(&err)
	return s.cs.Complete(ctx, p)
}

// Subscribe asks the server for notifications/resources/updated of uri.
func (s *Session) Subscribe(ctx context.Context, uri string) (err error) {
	defer s.hide(&err)
	return s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
}

// Unsubscribe asks the server for no more notifications of uri.
func (s *Session) Unsubscribe(ctx context.Context, uri string) (err error) {
	defer s.hide(&err)
	return s.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
}

// OffersChanged signals when the server says its resources or prompts
// changed (notifications/resources/list_changed,
// notifications/prompts/list_changed).
func (s *Session) OffersChanged() <-chan struct{} { return s.offersChanged }
