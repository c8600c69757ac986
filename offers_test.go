package strata_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// offersClient connects a client of protocol version to strata serve on
// the workspace of s, over stdio or (http) --http.
func (s *setup) offersClient(t *testing.T, http bool, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if http {
		return s.serveHTTP(t).connect(t, version, opts)
	}
	return s.serveProcessVersion(t, opts, version)
}

// TestServeOffers (issue 26 point 3): what server-everything offers
// beside tools (resources, resource templates, prompts with arguments,
// completions) is served through strata serve, over stdio and HTTP, to
// clients of both protocols: its URIs as it gives them (its tools' results
// link them), its prompts by their names, each request passed on.
func TestServeOffers(t *testing.T) {
	for _, http := range []bool{false, true} {
		for _, version := range []string{"2025-11-25", "2026-07-28"} {
			name := version + " stdio"
			if http {
				name = version + " http"
			}
			t.Run(name, func(t *testing.T) {
				s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
				cs := s.offersClient(t, http, version, nil)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()

				caps := cs.InitializeResult().Capabilities
				if caps.Resources == nil || !caps.Resources.Subscribe || caps.Prompts == nil || caps.Completions == nil {
					t.Errorf("capabilities %+v: want resources (with subscribe), prompts and completions", caps)
				}
				var uris []string
				for r, err := range cs.Resources(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					uris = append(uris, r.URI)
				}
				if !slices.Contains(uris, "demo://resource/static/document/features.md") {
					t.Errorf("resources/list %v: want demo://resource/static/document/features.md", uris)
				}
				var templates []string
				for rt, err := range cs.ResourceTemplates(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					templates = append(templates, rt.URITemplate)
				}
				slices.Sort(templates)
				if diff := cmp.Diff([]string{"demo://resource/dynamic/blob/{resourceId}", "demo://resource/dynamic/text/{resourceId}"}, templates); diff != "" {
					t.Errorf("resources/templates/list (-want +got):\n%s", diff)
				}
				var prompts []string
				for p, err := range cs.Prompts(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					prompts = append(prompts, p.Name)
				}
				slices.Sort(prompts)
				if diff := cmp.Diff([]string{"args-prompt", "completable-prompt", "resource-prompt", "simple-prompt"}, prompts); diff != "" {
					t.Errorf("prompts/list (-want +got):\n%s", diff)
				}

				read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/static/document/features.md"})
				if err != nil {
					t.Fatal(err)
				}
				if len(read.Contents) != 1 || read.Contents[0].URI != "demo://resource/static/document/features.md" || !strings.Contains(read.Contents[0].Text, "#") {
					t.Errorf("resources/read gave %+v", read.Contents)
				}
				// A URI of a template, listed nowhere: its server's.
				read, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "demo://resource/dynamic/text/7"})
				if err != nil {
					t.Fatal(err)
				}
				if len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "7") {
					t.Errorf("resources/read of a template's URI gave %+v", read.Contents)
				}

				got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "args-prompt", Arguments: map[string]string{"city": "Lyon", "state": "Rhône"}})
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Messages) == 0 || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "Lyon") {
					t.Errorf("prompts/get args-prompt gave %+v", got.Messages)
				}
				done, err := cs.Complete(ctx, &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "completable-prompt"},
					Argument: mcp.CompleteParamsArgument{Name: "name", Value: "A"},
					Context:  &mcp.CompleteContext{Arguments: map[string]string{"department": "Engineering"}},
				})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"Alice"}, done.Completion.Values); diff != "" {
					t.Errorf("completion/complete of a prompt (-want +got):\n%s", diff)
				}
				done, err = cs.Complete(ctx, &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "demo://resource/dynamic/text/{resourceId}"},
					Argument: mcp.CompleteParamsArgument{Name: "resourceId", Value: "3"},
				})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff([]string{"3"}, done.Completion.Values); diff != "" {
					t.Errorf("completion/complete of a template (-want +got):\n%s", diff)
				}

				_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "no-such-prompt"})
				var rpc *jsonrpc.Error
				if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("prompts/get of a prompt nobody offers: %v, want invalid params", err)
				}
			})
		}
	}
}
