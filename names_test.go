package strata_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/mcptest"
	"github.com/strata-config/strata/protocol"
)

// everythingTools lists the tools of one server-everything, as a server
// named "one" gives them alone.
func everythingTools(t *testing.T) []string {
	t.Helper()
	s := newSetup(t, map[string]string{"home/strata/config.toml": everythingAs(t, "one", "")})
	return s.resolveOnce(t).names
}

// resolveNames opens the workspace of s with opts and resolves it: the
// names of its tools, the messages of its warnings, and the paths and
// messages of its errors.
func resolveNames(t *testing.T, s *setup, opts ...strata.Option) (names, warnings, errs []string) {
	t.Helper()
	w := s.open(t, opts...)
	defer w.Close()
	cat, err := w.Resolve(context.Background())
	if cat == nil {
		t.Fatal(err)
	}
	for _, d := range cat.Tools {
		names = append(names, d.Name)
	}
	for _, e := range cat.Warnings {
		warnings = append(warnings, e.Msg)
	}
	for _, e := range diag.All(err) {
		errs = append(errs, e.Key()+": "+e.Msg)
	}
	return names, warnings, errs
}

// under returns the names of tools, each with prefix before it.
func under(prefix string, tools []string) []string {
	out := make([]string, len(tools))
	for i, n := range tools {
		out[i] = prefix + n
	}
	return out
}

// TestTwoEverythings (issue 35 points 1 to 3): two server-everything
// servers give all their tools, each under a name that says whose, with
// a scheme (the config's, a server's, or the host's) and without one
// (then with one warning); a server that is down, or that does not start
// in time, changes nothing of what the other gives; settings and calls
// reach a tool under the name the catalog gives it.
func TestTwoEverythings(t *testing.T) {
	t.Parallel()
	tools := everythingTools(t)
	if len(tools) < 5 || !slices.Contains(tools, "echo") {
		t.Fatalf("server-everything lists %v", tools)
	}
	both := func(a, b string) []string {
		out := append(under(a, tools), under(b, tools)...)
		slices.Sort(out)
		return out
	}
	down := "\n[mcp_servers.ev1]\ncommand = \"DIR/no-such-server\"\n"
	slow := everythingAs(t, "ev1", "startup_timeout_sec = 0.001\n")
	shared := "the MCP servers ev1 and ev2 both have " + strconv.Itoa(len(tools)) + " tools of the same names (" + strings.Join(tools[:3], ", ") + " and " + strconv.Itoa(len(tools)-3) + " more); none of them gets those names: they are ev1__<name> and ev2__<name>"
	tests := []struct {
		name     string
		config   string
		opts     []strata.Option
		want     []string
		warnings []string
		errs     []string
	}{
		{
			name:   "the config's scheme",
			config: "tool_names = \"{server}__{tool}\"\n" + everythingAs(t, "ev1", "") + everythingAs(t, "ev2", ""),
			want:   both("ev1__", "ev2__"),
		},
		{
			name:   "the host's scheme",
			config: everythingAs(t, "ev1", "") + everythingAs(t, "ev2", ""),
			opts:   []strata.Option{strata.ToolNames(config.ServerNames)},
			want:   both("ev1__", "ev2__"),
		},
		{
			name:   "the config's scheme over the host's",
			config: "tool_names = \"mcp__{server}__{tool}\"\n" + everythingAs(t, "ev1", "") + everythingAs(t, "ev2", ""),
			opts:   []strata.Option{strata.ToolNames(config.ServerNames)},
			want:   both("mcp__ev1__", "mcp__ev2__"),
		},
		{
			name:   "one server's scheme",
			config: everythingAs(t, "ev1", "") + everythingAs(t, "ev2", "tool_names = \"two_{tool}\"\n"),
			want:   both("", "two_"),
		},
		{
			name:     "no scheme: both given, with one warning",
			config:   everythingAs(t, "ev1", "") + everythingAs(t, "ev2", ""),
			want:     both("ev1__", "ev2__"),
			warnings: []string{shared},
		},
		{
			name:   "one server does not start: every tool of the other",
			config: "tool_names = \"{server}__{tool}\"\n" + down + everythingAs(t, "ev2", ""),
			want:   under("ev2__", tools),
			errs:   []string{"mcp_servers.ev1: cannot start " + "DIR/no-such-server: DIR/no-such-server: not found"},
		},
		{
			name:   "one server does not start, no scheme: every tool of the other",
			config: down + everythingAs(t, "ev2", ""),
			want:   tools,
			errs:   []string{"mcp_servers.ev1: cannot start " + "DIR/no-such-server: DIR/no-such-server: not found"},
		},
		{
			name:   "one server does not start in time: every tool of the other",
			config: "tool_names = \"{server}__{tool}\"\n" + slow + everythingAs(t, "ev2", ""),
			want:   under("ev2__", tools),
			errs:   []string{"mcp_servers.ev1: cannot start EVERYTHING: did not start within 1ms"},
		},
		{
			name:   "settings without a source for the other server's tool, while one is down",
			config: down + everythingAs(t, "ev2", "") + "\n[tools.echo]\ndescription = \"Say it back.\"\n",
			want:   tools,
			errs:   []string{"mcp_servers.ev1: cannot start " + "DIR/no-such-server: DIR/no-such-server: not found"},
			// Never silent: the server that is down may have an echo too.
			warnings: []string{"applied to the tool echo of the MCP server ev2, while the MCP server ev1, which did not answer and has never listed its tools, may have a tool of this name too"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSetup(t, map[string]string{"home/strata/config.toml": tt.config})
			names, warnings, errs := resolveNames(t, s, tt.opts...)
			if diff := cmp.Diff(tt.want, names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			node, entry := mcptest.EverythingEntry(t)
			for i, e := range errs {
				errs[i] = strings.NewReplacer(s.dir, "DIR", node+" "+entry+" stdio", "EVERYTHING").Replace(e)
			}
			if diff := cmp.Diff(tt.errs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTwoEverythingsDown (issue 35 point 3): a server that is down keeps
// the names it last listed, so the other's tools keep theirs, which are
// those they had while both were up; and settings and calls reach the
// other's tools under those names.
func TestTwoEverythingsDown(t *testing.T) {
	t.Parallel()
	tools := everythingTools(t)
	up := everythingAs(t, "ev1", "") + everythingAs(t, "ev2", "") + "\n[tools.ev2__echo]\ndescription = \"Say it back.\"\nrun = \"unattended\"\n"
	s := newSetup(t, map[string]string{"home/strata/config.toml": up})
	names, _, errs := resolveNames(t, s)
	want := append(under("ev1__", tools), under("ev2__", tools)...)
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" || errs != nil {
		t.Fatalf("both up: %v; tools (-want +got):\n%s", errs, diff)
	}
	// ev1 does not start in time now (the same launch: the cache knows
	// it): what it listed last holds its names.
	slow := strings.Replace(up, "[mcp_servers.ev1]\n", "[mcp_servers.ev1]\nstartup_timeout_sec = 0.001\n", 1)
	if err := os.WriteFile(filepath.Join(s.home, "strata", "config.toml"), []byte(slow), 0o644); err != nil {
		t.Fatal(err)
	}
	w := s.open(t, strata.Refresh())
	cat, err := w.Resolve(context.Background())
	if cat == nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range cat.Tools {
		got = append(got, d.Name)
	}
	if diff := cmp.Diff(under("ev2__", tools), got); diff != "" {
		t.Errorf("ev1 down: tools (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), "mcp_servers.ev1") {
		t.Errorf("ev1 down: %v", err)
	}
	d, _ := cat.Tool("ev2__echo")
	if d.Description != "Say it back." || d.Source != "mcp.ev2.echo" {
		t.Errorf("ev2__echo: %q from %s", d.Description, d.Source)
	}
	res, err := w.Call(context.Background(), "ev2__echo", json.RawMessage(`{"message":"hi"}`))
	if err != nil || res.Type != protocol.Success || !strings.Contains(res.Content, "hi") {
		t.Fatalf("call of ev2__echo: %+v, %v", res, err)
	}
}

// TestExplainToolNames: explaining a tool that a scheme named shows the
// setting that named it, with the layer that set it.
func TestExplainToolNames(t *testing.T) {
	s := newSetup(t, map[string]string{"home/strata/config.toml": "tool_names = \"{server}__{tool}\"\n\n[mcp_servers.one]\ncommand = \"MCPFAKE\"\nargs = [\"-tools\", \"1\"]\n\n[mcp_servers.two]\ncommand = \"MCPFAKE\"\nargs = [\"-tools\", \"1\"]\ntool_names = \"t_{tool}\"\n"})
	w := s.open(t)
	for _, tt := range []struct{ tool, key, value string }{
		{"one__tool_000", "tool_names", `"{server}__{tool}"`},
		{"t_tool_000", "mcp_servers.two.tool_names", `"t_{tool}"`},
	} {
		ex, err := w.ExplainTool(context.Background(), tt.tool)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, k := range ex.Keys {
			got = append(got, k.Path.String()+" = "+k.Value+" ("+strconv.Itoa(len(k.Steps))+" layer)")
		}
		if !slices.Contains(got, tt.key+" = "+tt.value+" (1 layer)") {
			t.Errorf("%s: keys %q, want %s among them", tt.tool, got, tt.key)
		}
	}
}
