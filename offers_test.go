package strata_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/internal/testbin"
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
	t.Parallel()
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

// TestServeOffersHostile (issue 26 point 3, attack): a server that offers
// 100,000 resources, prompts of 200 kB each, and URIs that do not parse
// gets the bounds of a tool list (the first 10,000 items, 4 MiB of each
// list), strata serve says so once and keeps serving, and what does not
// parse is left out (the SDK's server panics on it).
func TestServeOffersHostile(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": `[tools.'*']
run = "unattended"

[mcp_servers.many]
command = "MCPFAKE"
args = ["-tools", "1", "-resources", "100000", "-prompts", "50", "-prompt-size", "200000", "-page-size", "5000"]

[mcp_servers.bad]
command = "MCPFAKE"
args = ["-echo", "-resources", "1", "-bad-uris"]
namespace = "bad"
`})
	h := s.serveHTTP(t)
	cs := h.connect(t, "2025-11-25", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	n, bad := 0, 0
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if strings.HasPrefix(r.URI, "bad+") {
			bad++
		}
	}
	if n != 10_001 || bad != 1 {
		t.Errorf("resources/list gave %d resources, %d of the server bad; want the first 10,000 of many's and bad's one that parses", n, bad)
	}
	var prompts, size int
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts++
		size += len(p.Description)
	}
	if prompts == 0 || prompts >= 50 || size > 4<<20 {
		t.Errorf("prompts/list gave %d prompts of %d bytes; want fewer than 50, within 4 MiB", prompts, size)
	}
	var templates int
	for _, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		templates++
	}
	if templates != 0 {
		t.Errorf("resources/templates/list gave %d templates; want none (bad's does not parse)", templates)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "bad+fake://res/0"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "res_0" || read.Contents[0].URI != "bad+fake://res/0" {
		t.Errorf("resources/read bad+fake://res/0: %+v, %v", read, err)
	}
	// Still serving.
	if names := toolNames(t, cs); !slices.Contains(names, "echo") {
		t.Errorf("tools/list after: %v", names)
	}
	for _, want := range []string{
		"the MCP server many's resources/list went past its budget of 10000 items: its first 10000 are served",
		"the MCP server many's prompts/list went past its budget of 4194304 bytes",
		`the MCP server bad's resource "fake://%zz" is not served: its URI is not an absolute URI`,
		`the MCP server bad's resource template "fake://{bad" is not served`,
	} {
		if got := h.stderr.String(); strings.Count(got, want) != 1 {
			t.Errorf("strata said %q %d times, want once:\n%s", want, strings.Count(got, want), got)
		}
	}
}

// everythingAs is the config of server-everything over stdio as the
// server name, with the settings more.
func everythingAs(t *testing.T, name, more string) string {
	node, entry := mcptest.EverythingEntry(t)
	return "\n[mcp_servers." + name + "]\ncommand = \"" + node + "\"\nargs = [\"" + entry + "\", \"stdio\"]\n" + more
}

// updates records the notifications/resources/updated a client gets.
func updates() (*mcp.ClientOptions, chan string) {
	ch := make(chan string, 100)
	return &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { ch <- req.Params.URI }}, ch
}

// TestServeOffersNamed (issue 26 point 3): the config hides a server's
// prompt (disabled_prompts), renames one (prompt_names), and namespaces
// another server's URIs and prompt names (namespace), each round-tripping
// through resources/read, prompts/get, completion/complete and
// resources/subscribe on both protocols.
func TestServeOffersNamed(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			s := newSetup(t, map[string]string{"home/strata/config.toml": "[tools.'*']\nrun = \"unattended\"\n\n[tools.toggle2]\nsource = \"mcp.ev2.toggle-subscriber-updates\"\n" +
				everythingAs(t, "everything", "expose = \"none\"\ndisabled_prompts = [\"simple-prompt\"]\nprompt_names = { args-prompt = \"weather\" }\n") +
				everythingAs(t, "ev2", "expose = \"none\"\nnamespace = \"ev2\"\n")})
			opts, updated := updates()
			cs := s.serveProcessVersion(t, opts, version)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			var prompts []string
			for p, err := range cs.Prompts(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				prompts = append(prompts, p.Name)
			}
			slices.Sort(prompts)
			if diff := cmp.Diff([]string{"completable-prompt", "ev2.args-prompt", "ev2.completable-prompt", "ev2.resource-prompt", "ev2.simple-prompt", "resource-prompt", "weather"}, prompts); diff != "" {
				t.Errorf("prompts/list (-want +got):\n%s", diff)
			}
			var uris []string
			for r, err := range cs.Resources(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				uris = append(uris, r.URI)
			}
			for _, want := range []string{"demo://resource/static/document/features.md", "ev2+demo://resource/static/document/features.md"} {
				if !slices.Contains(uris, want) {
					t.Errorf("resources/list %v: want %s", uris, want)
				}
			}
			read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ev2+demo://resource/dynamic/text/5"})
			if err != nil {
				t.Fatal(err)
			}
			if len(read.Contents) != 1 || read.Contents[0].URI != "ev2+demo://resource/dynamic/text/5" {
				t.Errorf("resources/read of a namespaced URI gave %+v", read.Contents)
			}
			got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "weather", Arguments: map[string]string{"city": "Lyon"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Messages) == 0 || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "Lyon") {
				t.Errorf("prompts/get weather gave %+v", got.Messages)
			}
			for _, hidden := range []string{"simple-prompt", "args-prompt"} {
				if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: hidden}); err == nil {
					t.Errorf("prompts/get %s: served, want it left out", hidden)
				}
			}
			done, err := cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "ev2.completable-prompt"},
				Argument: mcp.CompleteParamsArgument{Name: "department", Value: "S"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"Sales", "Support"}, done.Completion.Values); diff != "" {
				t.Errorf("completion/complete of a namespaced prompt (-want +got):\n%s", diff)
			}
			done, err = cs.Complete(ctx, &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "ev2+demo://resource/dynamic/text/{resourceId}"},
				Argument: mcp.CompleteParamsArgument{Name: "resourceId", Value: "4"},
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"4"}, done.Completion.Values); diff != "" {
				t.Errorf("completion/complete of a namespaced template (-want +got):\n%s", diff)
			}

			const doc = "ev2+demo://resource/static/document/features.md"
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: doc}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "toggle2", Arguments: map[string]any{}}); err != nil {
				t.Fatal(err)
			}
			if uri := receive(t, ctx, updated, "notifications/resources/updated"); uri != doc {
				t.Errorf("notifications/resources/updated of %s, want %s", uri, doc)
			}
		})
	}
}

// TestServeOffersSubscribed (issue 26 point 3): over HTTP, where clients
// share one process of each server, a resource's updates go to the
// clients subscribed to it alone.
func TestServeOffersSubscribed(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
	h := s.serveHTTP(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const one, other = "demo://resource/static/document/features.md", "demo://resource/static/document/architecture.md"
	optsA, a := updates()
	optsB, b := updates()
	ca := h.connect(t, "2025-11-25", optsA)
	cb := h.connect(t, "2025-11-25", optsB)
	if err := ca.Subscribe(ctx, &mcp.SubscribeParams{URI: one}); err != nil {
		t.Fatal(err)
	}
	if err := cb.Subscribe(ctx, &mcp.SubscribeParams{URI: other}); err != nil {
		t.Fatal(err)
	}
	// The one process of server-everything has both subscriptions: the
	// tool sends an update of each.
	if _, err := ca.CallTool(ctx, &mcp.CallToolParams{Name: "toggle-subscriber-updates", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if uri := receive(t, ctx, a, "an update for the first client"); uri != one {
		t.Errorf("the first client got an update of %s, subscribed to %s", uri, one)
	}
	if uri := receive(t, ctx, b, "an update for the second client"); uri != other {
		t.Errorf("the second client got an update of %s, subscribed to %s", uri, other)
	}
	if err := cb.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: other}); err != nil {
		t.Fatal(err)
	}
}

// TestServeOffersShared (issue 26 point 3): a URI or a prompt name that
// two servers offer is neither's, with one warning for the two that names
// them and the fix; a namespace keeps a third server's apart.
func TestServeOffersShared(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": `
[mcp_servers.a]
command = "MCPFAKE"
args = ["-resources", "7", "-prompts", "1"]

[mcp_servers.b]
command = "MCPFAKE"
args = ["-resources", "7", "-prompts", "1"]

[mcp_servers.c]
command = "MCPFAKE"
args = ["-resources", "1", "-prompts", "1"]
namespace = "c"
`})
	h := s.serveHTTP(t)
	cs := h.connect(t, "2025-11-25", nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var uris, prompts []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		prompts = append(prompts, p.Name)
	}
	if diff := cmp.Diff([]string{"c+fake://res/0"}, uris); diff != "" {
		t.Errorf("resources/list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c.prompt_0"}, prompts); diff != "" {
		t.Errorf("prompts/list (-want +got):\n%s", diff)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "fake://res/0"}); err == nil {
		t.Errorf("resources/read of a URI two servers offer: served, want neither's")
	}
	for _, want := range []string{
		`the MCP servers a and b both offer the resources "fake://res/0", "fake://res/1", "fake://res/2", "fake://res/3", "fake://res/4" and 2 more, so they are served from none of them; set namespace under [mcp_servers.a] or [mcp_servers.b]`,
		`the MCP servers a and b both offer the prompt "prompt_0", so it is served from none of them; set namespace under [mcp_servers.a] or [mcp_servers.b], or rename with prompt_names`,
	} {
		if got := h.stderr.String(); strings.Count(got, want) != 1 {
			t.Errorf("strata said %q %d times, want once:\n%s", want, strings.Count(got, want), got)
		}
	}
}

// TestServeRelaysTitledMultiSelect (SEP-1330): the Go SDK's reference
// server asks for a titled multi-select enum (items with "type":
// "string" and anyOf), which the SDK's client and server sessions refuse
// ("items must specify enum for untitled enums"): strata relays the
// request as it is, and the answer back.
func TestServeRelaysTitledMultiSelect(t *testing.T) {
	t.Parallel()
	bins, err := testbin.Build("github.com/modelcontextprotocol/go-sdk/conformance/everything-server")
	if err != nil {
		t.Fatal(err)
	}
	ref := bins["github.com/modelcontextprotocol/go-sdk/conformance/everything-server"]
	s := newSetup(t, map[string]string{"home/strata/config.toml": "[tools.'*']\nrun = \"unattended\"\n\n[mcp_servers.reference]\ncommand = \"" + ref + "\"\n"})
	asked := make(chan *mcp.ElicitParams, 1)
	// The Go SDK's client refuses the schema itself: this one takes the
	// request off before it does, and declines (the reference server
	// refuses an accepted answer with the same rules). On 2025-11-25: a
	// client of 2026-07-28 gets the request in the call's result.
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, errors.New("not reached")
	}})
	client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.ElicitParams); ok && method == "elicitation/create" {
				asked <- p
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return next(ctx, method, req)
		}
	})
	cs := s.serveClient(t, client, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_elicitation_sep1330_enums", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	p := receive(t, ctx, asked, "the elicitation")
	schema, _ := json.Marshal(p.RequestedSchema)
	if !strings.Contains(string(schema), `"titledMulti":{"items":{"anyOf":[{"const":"value1","title":"First Option"}`) {
		t.Errorf("the client was asked with the schema %s", schema)
	}
	if got := mcptest.Text(res); res.IsError || !strings.Contains(got, "action=decline") {
		t.Errorf("the tool gave %q (error %v)", got, res.IsError)
	}
}

// TestInspectorThroughServeHTTP (issue 26): the MCP Inspector's CLI lists
// the tools, resources and prompts of server-everything through strata
// serve --http, its clients at once, and they share one process of the
// server.
func TestInspectorThroughServeHTTP(t *testing.T) {
	t.Parallel()
	inode, inspector := mcptest.InspectorEntry(t)
	node, entry := mcptest.EverythingEntry(t)
	s := newSetup(t, map[string]string{
		"home/strata/config.toml": "[tools.'*']\nrun = \"unattended\"\n\n[mcp_servers.everything]\ncommand = \"DIR/everything.sh\"\nstartup_timeout_sec = 60\n",
		// server-everything, each start written down.
		"everything.sh": "#!/bin/sh\necho start >> DIR/starts.log\nexec '" + node + "' '" + entry + "' stdio\n",
	})
	h := s.serveHTTP(t)
	methods := []struct{ method, key, want string }{
		{"tools/list", "tools", "echo"},
		{"resources/list", "resources", "demo://resource/static/document/features.md"},
		{"resources/templates/list", "resourceTemplates", "demo://resource/dynamic/text/{resourceId}"},
		{"prompts/list", "prompts", "args-prompt"},
	}
	type listed struct {
		out []byte
		err error
	}
	outs := make([]chan listed, len(methods))
	for i, m := range methods {
		outs[i] = make(chan listed, 1)
		go func() {
			cmd := exec.Command(inode, inspector, h.url, "--transport", "http", "--method", m.method, "--header", "Authorization: Bearer "+h.token)
			// It finds its package.json by a path relative to the
			// working directory, which it then imports relative to
			// itself: from its own directory, both are the same.
			cmd.Dir = filepath.Dir(inspector)
			out, err := cmd.Output()
			if ee, ok := err.(*exec.ExitError); ok {
				err = fmt.Errorf("%v: %s", err, ee.Stderr)
			}
			outs[i] <- listed{out, err}
		}()
	}
	for i, m := range methods {
		l := <-outs[i]
		if l.err != nil {
			t.Errorf("the Inspector's %s: %v", m.method, l.err)
			continue
		}
		var res map[string]json.RawMessage
		var items []map[string]any
		if err := json.Unmarshal(l.out, &res); err != nil || json.Unmarshal(res[m.key], &items) != nil {
			t.Errorf("the Inspector's %s printed %s", m.method, l.out)
			continue
		}
		var got []string
		for _, item := range items {
			for _, k := range []string{"name", "uri", "uriTemplate"} {
				if v, ok := item[k].(string); ok {
					got = append(got, v)
				}
			}
		}
		if !slices.Contains(got, m.want) {
			t.Errorf("the Inspector's %s lists %v, want %s among them", m.method, got, m.want)
		}
	}
	b, err := os.ReadFile(filepath.Join(s.dir, "starts.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "start"); n != 1 {
		t.Errorf("server-everything started %d times for %d clients, want once", n, len(methods))
	}
}

// TestServeRelaysRoots (issue 26 point 3): a server's roots/list goes to
// the client strata serves when it declares roots: over stdio, on both
// protocols; over HTTP, to the client whose call is under way.
func TestServeRelaysRoots(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, version string
		http          bool
	}{
		{"stdio 2025-11-25", "2025-11-25", false},
		{"stdio 2026-07-28", "2026-07-28", false},
		{"http 2025-11-25", "2025-11-25", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
			client := mcp.NewClient(&mcp.Implementation{Name: "roots-test", Version: "1"}, nil)
			client.AddRoots(&mcp.Root{URI: "file:///work/project", Name: "project"})
			var cs *mcp.ClientSession
			if tt.http {
				h := s.serveHTTP(t)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				tr := &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: mcptest.Bearer{Token: h.token}}}
				var err error
				if cs, err = client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: tt.version}); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { cs.Close() })
			} else {
				cs = s.serveClient(t, client, tt.version)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-roots-list", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if got := mcptest.Text(res); !strings.Contains(got, "URI: file:///work/project") {
				t.Errorf("get-roots-list gave %q", got)
			}
		})
	}
}

// TestServeOffersListChanged (issue 26 point 3): a server that says its
// resources changed is listed again, and the client is told: the
// resource a tool made is listed and read through strata.
func TestServeOffersListChanged(t *testing.T) {
	t.Parallel()
	s := newSetup(t, map[string]string{"home/strata/config.toml": everythingServer(t)})
	changed := make(chan struct{}, 100)
	cs := s.serveProcessVersion(t, &mcp.ClientOptions{ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} }}, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list := func() []string {
		var uris []string
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			uris = append(uris, r.URI)
		}
		return uris
	}
	list()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "gzip-file-as-resource", Arguments: map[string]any{"name": "hello.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resourceLink"}})
	if err != nil {
		t.Fatal(err)
	}
	link, ok := res.Content[0].(*mcp.ResourceLink)
	if !ok {
		t.Fatalf("gzip-file-as-resource gave %v", res.Content)
	}
	// The first listing filled the list, which the client was told too:
	// each notification, the list again, until it holds the new resource.
	for !slices.Contains(list(), link.URI) {
		receive(t, ctx, changed, "notifications/resources/list_changed with "+link.URI)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
	if err != nil {
		t.Fatal(err)
	}
	if len(read.Contents) != 1 || len(read.Contents[0].Blob) == 0 {
		t.Errorf("resources/read %s gave %+v", link.URI, read.Contents)
	}
}
