package discover_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/discover"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/proctest"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/resolve"
)

// memServer returns an in-memory MCP server with the given tools.
func memServer(t *testing.T, tools ...*mcp.Tool) *mcp.Server {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "mem", Version: "1.0.0"}, nil)
	for _, tool := range tools {
		s.AddTool(tool, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	return s
}

// transports connects each named server in memory; a missing name fails
// to start.
func transports(t *testing.T, servers map[string]*mcp.Server) func(context.Context, string, config.MCPServer) (mcp.Transport, error) {
	return func(ctx context.Context, name string, _ config.MCPServer) (mcp.Transport, error) {
		s, ok := servers[name]
		if !ok {
			return nil, errors.New("no such server here")
		}
		ct, st := mcp.NewInMemoryTransports()
		go func() {
			ss, err := s.Connect(context.Background(), st, nil)
			if err == nil {
				ss.Wait()
			}
		}()
		return ct, nil
	}
}

func rawSchema(s string) json.RawMessage { return json.RawMessage(s) }

func TestMCPTools(t *testing.T) {
	files := memServer(t,
		&mcp.Tool{Name: "read_text_file", Title: "Read a file", Description: "Read a file. As text.", InputSchema: rawSchema(`{"type":"object","properties":{"path":{"type":"string"},"encoding":{"type":"string","enum":["utf8","latin1"]}},"required":["path"]}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}, OutputSchema: rawSchema(`{"type":"object","properties":{"text":{"type":"string"}}}`)},
		&mcp.Tool{Name: "write_file", Description: "Write a file.", InputSchema: rawSchema(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
		&mcp.Tool{Name: "list_directory", Description: "List a directory.", InputSchema: rawSchema(`{"type":"object"}`)},
	)
	other := memServer(t, &mcp.Tool{Name: "list_directory", Description: "Other list.", InputSchema: rawSchema(`{"type":"object"}`)})
	r := discover.Resolver{MCPTransport: transports(t, map[string]*mcp.Server{"fs": files, "other": other})}
	c, err := resolveIn(t, r, `
[mcp_servers.fs]
command = "unused"
expose = "all"

[mcp_servers.other]
command = "unused"
expose = ["list_directory"]

[tools.read]
source = "mcp.fs.read_text_file"
summary = "Read a text file."

[tools.read.parameters.encoding]
enum = ["utf8"]

[tools.write_file]
source = "mcp.fs"
run = "ask"
`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range c.Tools {
		names = append(names, d.Name+"="+d.Source)
	}
	// read_text_file is renamed read: it is not also served under its own
	// name. Both servers expose list_directory: the name is neither's,
	// and each is given under its server's name.
	want := []string{"fs__list_directory=mcp.fs.list_directory", "other__list_directory=mcp.other.list_directory", "read=mcp.fs.read_text_file", "write_file=mcp.fs"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	wantWarnings := []string{`renamed: mcp_servers.other: the MCP servers fs and other both have a tool named list_directory; neither gets the name: they are fs__list_directory and other__list_directory; ` +
		`to give the name to one: [tools.list_directory] source = "mcp.fs.list_directory"; or name every server's tools so: tool_names = "{server}__{tool}"; or leave it out of one server with expose or disabled_tools`}
	if diff := cmp.Diff(wantWarnings, errLines(c.Warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	read, _ := c.Tool("read")
	if read.Exec.Kind != resolve.ExecMCP || read.Exec.Server != "fs" || read.Exec.Tool != "read_text_file" {
		t.Errorf("call: %+v", read.Exec)
	}
	if read.Title != "Read a file" || read.Summary != "Read a text file." || read.Description != "Read a text file.\n\nAs text." {
		t.Errorf("text: %q %q %q", read.Title, read.Summary, read.Description)
	}
	if got := read.InputSchema.String(); got != `{"type":"object","properties":{"path":{"type":"string"},"encoding":{"type":"string","enum":["utf8"],"default":"utf8"}},"required":["path"]}` {
		t.Errorf("schema with the override: %s", got)
	}
	b, _, _ := export.Marshal(c, export.MCP)
	for _, want := range []string{`"title": "Read a file"`, `"readOnlyHint": true`, `"outputSchema": {`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("MCP export lacks %s:\n%s", want, b)
		}
	}
}

func TestMCPProblems(t *testing.T) {
	files := memServer(t, &mcp.Tool{Name: "read_text_file", Description: "Read.", InputSchema: rawSchema(`{"type":"object"}`)})
	r := discover.Resolver{MCPTransport: transports(t, map[string]*mcp.Server{"fs": files})}
	c, err := resolveIn(t, r, `
[mcp_servers.fs]
command = "unused"
expose = ["read_text_fil"]

[mcp_servers.down]
command = "gone-server"
args = ["--stdio"]

[mcp_servers.maybe]
command = "maybe-server"
optional = true

[tools.read]
source = "mcp.fs.read_txt_file"

[tools.a]
source = "mcp.down"

[tools.b]
source = "mcp.maybe"
`)
	want := []string{
		"mcp_servers.down: cannot start gone-server --stdio: no such server here",
		"mcp_servers.fs.expose: the server has no tool named read_text_fil; did you mean read_text_file?",
		"tools.read.source: the MCP server fs has no tool named read_txt_file; did you mean read_text_file?",
	}
	if diff := cmp.Diff(want, errLines(err)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	wantWarnings := []string{"skipped: mcp_servers.maybe: cannot start maybe-server: no such server here (the server is optional: its tools are left out)"}
	if diff := cmp.Diff(wantWarnings, errLines(c.Warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if len(c.Tools) != 0 {
		t.Errorf("tools: %v", c.Tools)
	}
}

// TestMCPServerProcess resolves the tools of mcpfake started as a real
// process: pagination, the cache (a warm resolve starts nothing, a refresh
// that finds other tools says so), and the failures of a server.
func TestMCPServerProcess(t *testing.T) {
	t.Run("pages", func(t *testing.T) {
		c, err := resolveIn(t, discover.Resolver{}, `
[mcp_servers.many]
command = "MCPFAKE"
args = ["-tools", "250", "-page-size", "100"]
expose = "all"
`)
		if err != nil || len(c.Tools) != 250 || c.Started != 1 {
			t.Fatalf("%v: %d tools, %d started", err, len(c.Tools), c.Started)
		}
	})
	t.Run("cache and refresh", func(t *testing.T) {
		dir := t.TempDir()
		schema := filepath.Join(dir, "schema.json")
		log := filepath.Join(dir, "starts")
		write := func(s string) {
			if err := os.WriteFile(schema, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
		src := `
[mcp_servers.fake]
command = "MCPFAKE"
args = ["-tools", "2", "-schema", "` + schema + `", "-log", "` + log + `"]
expose = "all"
`
		store := &cache.Cache{Dir: t.TempDir()}
		r := discover.Resolver{Root: dir, Cache: store}
		cold, err := resolveIn(t, r, src)
		if err != nil || cold.Started != 1 {
			t.Fatalf("cold: %v, %d started", err, cold.Started)
		}
		write(`{"type":"object","properties":{"n":{"type":"number"}}}`)
		warm, err := resolveIn(t, r, src)
		if err != nil || warm.Started != 0 || warm.Fingerprint != cold.Fingerprint {
			t.Fatalf("warm: %v, %d started, the same catalog: %v", err, warm.Started, warm.Fingerprint == cold.Fingerprint)
		}
		refresh := r
		refresh.Refresh = true
		fresh, err := resolveIn(t, refresh, src)
		if err != nil || fresh.Started != 1 || fresh.Fingerprint == cold.Fingerprint {
			t.Fatalf("refresh: %v, %d started, a new catalog: %v", err, fresh.Started, fresh.Fingerprint != cold.Fingerprint)
		}
		want := []string{"changed: mcp_servers.fake: the server's tools differ from those cached; the cache now holds the new ones"}
		if diff := cmp.Diff(want, errLines(fresh.Warnings)); diff != "" {
			t.Errorf("refresh warnings (-want +got):\n%s", diff)
		}
		again, err := resolveIn(t, r, src)
		if err != nil || again.Started != 0 || again.Fingerprint != fresh.Fingerprint {
			t.Fatalf("after the refresh: %v, %d started, the refreshed catalog: %v", err, again.Started, again.Fingerprint == fresh.Fingerprint)
		}
		if b, _ := os.ReadFile(log); strings.Count(string(b), "start ") != 2 {
			t.Errorf("the server started %d times, want 2", strings.Count(string(b), "start "))
		}
	})
	failures := []struct {
		name, args, extra string
		want              string
		stderr            []string // what the error keeps of the server's stderr, for the local user
	}{
		{name: "crash", args: `"-crash-after-init", "-stderr", "fatal: no config"`,
			want: `mcp_servers.bad: cannot start MCPFAKE -crash-after-init -stderr 'fatal: no config': exited during its start (exit status 3); ` +
				`check command and args under [mcp_servers.bad]; run that command line yourself to see it fail`,
			stderr: []string{"fatal: no config"}},
		{name: "hang", args: `"-hang-init"`, extra: "startup_timeout_sec = 0.3",
			want: "mcp_servers.bad: cannot start MCPFAKE -hang-init: did not start within 300ms; " +
				"if it is only slow to start, raise its startup timeout (300ms): startup_timeout_sec = 60 under [mcp_servers.bad]; if it never starts, check its command and args"},
		{name: "repeated cursor", args: `"-tools", "5", "-page-size", "2", "-repeat-cursor"`,
			want: `mcp_servers.bad: MCPFAKE -tools 5 -page-size 2 -repeat-cursor: tools/list repeats the cursor "same-cursor"`},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			src := "[mcp_servers.bad]\ncommand = \"MCPFAKE\"\nargs = [" + tt.args + "]\nexpose = \"all\"\n" + tt.extra + "\n"
			_, err := resolveIn(t, discover.Resolver{}, src)
			got := strings.ReplaceAll(strings.Join(errLines(err), "\n"), mcpfake, "MCPFAKE")
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("error:\n%s\nwant it to start with:\n%s", got, tt.want)
			}
			if diff := cmp.Diff(tt.stderr, mcpclient.StderrOf(err)); diff != "" {
				t.Errorf("the server's stderr kept (-want +got):\n%s", diff)
			}
			c, err := resolveIn(t, discover.Resolver{}, src+"optional = true\n[mcp_servers.good]\ncommand = \"MCPFAKE\"\nargs = [\"-tools\", \"1\"]\nexpose = \"all\"\n")
			if err != nil || len(c.Tools) != 1 || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0].Error(), "(the server is optional: its tools are left out)") {
				t.Errorf("optional: %v, %d tools, warnings %v", err, len(c.Tools), c.Warnings)
			}
		})
	}
}

// TestServersRevalidate: a catalog resolved from the cache starts no
// server; the first call starts it, finds that its tools changed, updates
// the cache and says so; the server then serves every call, and leaves
// when the config no longer names it.
func TestServersRevalidate(t *testing.T) {
	dir := t.TempDir()
	schema := filepath.Join(dir, "schema.json")
	log := filepath.Join(dir, "starts")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `
[mcp_servers.fake]
command = "MCPFAKE"
args = ["-tools", "1", "-schema", "` + schema + `", "-log", "` + log + `"]
expose = "all"
`
	starts := func() []string {
		b, _ := os.ReadFile(log)
		return strings.Fields(strings.ReplaceAll(string(b), "start ", ""))
	}
	store := &cache.Cache{Dir: t.TempDir()}
	old, err := resolveIn(t, discover.Resolver{Root: dir, Cache: store}, src)
	if err != nil || len(starts()) != 1 {
		t.Fatalf("filling the cache: %v, %d starts", err, len(starts()))
	}
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"n":{"type":"number"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}

	changed := make(chan string, 1)
	servers := &upstream.Servers{Cache: store, OnChange: func(s string) { changed <- s }}
	defer servers.Close()
	r := discover.Resolver{Root: dir, Environ: environ, Cache: store, Servers: servers}
	warm, err := resolveIn(t, r, src)
	if err != nil || warm.Started != 0 || warm.Fingerprint != old.Fingerprint {
		t.Fatalf("warm: %v, %d started, the cached catalog: %v", err, warm.Started, warm.Fingerprint == old.Fingerprint)
	}
	cfg := configOf(t, src)
	ctx := context.Background()
	spec := r.Server("fake", cfg.MCPServers["fake"], dir, dir)
	res, err := servers.Call(ctx, spec, "tool_000", nil, nil)
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "tool_000: ok" {
		t.Fatalf("call: %v, %+v", err, res)
	}
	select {
	case s := <-changed:
		if s != "fake" {
			t.Errorf("OnChange(%q)", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no OnChange after the tools changed")
	}
	fresh, err := resolveIn(t, r, src)
	if err != nil || fresh.Started != 0 || fresh.Fingerprint == old.Fingerprint {
		t.Fatalf("after revalidating: %v, %d started, a new catalog: %v", err, fresh.Started, fresh.Fingerprint != old.Fingerprint)
	}
	if _, err := servers.Call(ctx, spec, "tool_000", nil, nil); err != nil {
		t.Fatal(err)
	}
	pids := starts()
	if len(pids) != 2 {
		t.Fatalf("%d starts, want 2 (one to fill the cache, one for both calls)", len(pids))
	}
	if _, err := resolveIn(t, r, "[mcp_servers.other]\ncommand = \"MCPFAKE\"\n"); err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(pids[1])
	if !proctest.WaitGone(pid, 10*time.Second) {
		t.Fatal("the server runs on after the config dropped it")
	}
}

// TestServerDownKeepsItsNames: a server that fails keeps the names of the
// tools it listed last, from the cache: they go to no other server (whose
// tool of a shared name keeps the name it had, under its server's), and
// settings that name them without a source stay an error. Its tools whose
// names strata does not take are left out, with one warning, as is a name
// it lists twice.
func TestServerDownKeepsItsNames(t *testing.T) {
	dir := t.TempDir()
	files := 0
	tool := func(name string) string {
		files++
		p := filepath.Join(dir, strconv.Itoa(files)+".json")
		b, _ := json.Marshal(map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}})
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	issue, evil, bidi := tool("create_issue"), tool("evil\x1b]0;title\x07"), tool("a\u202eb\u202c")
	twice := tool("twice_listed")
	down := filepath.Join(dir, "down")
	src := `
[mcp_servers.a_evil]
command = "MCPFAKE"
args = ["-tool", "` + issue + `", "-tool", "` + evil + `", "-tool", "` + bidi + `", "-tool", "` + twice + `", "-tool", "` + twice + `"]
expose = "all"

[mcp_servers.github]
command = "MCPFAKE"
args = ["-tool", "` + issue + `", "-tools", "1", "-fail-if", "` + down + `"]
expose = "all"
optional = true
`
	r := discover.Resolver{Root: dir, Cache: &cache.Cache{Dir: t.TempDir()}}
	up, err := resolveIn(t, r, src)
	if got := toolNames(up); err != nil || !slices.Equal(got, []string{"a_evil__create_issue", "github__create_issue", "tool_000"}) {
		t.Fatalf("both up: %v, %v", err, got)
	}
	wantRefused := `skipped: mcp_servers.a_evil: 2 tools are left out: their names ("evil\x1b]0;title\a", "a\u202eb\u202c") are not ones strata takes; a tool name is 1 to 128 characters that print as themselves: no control, formatting or bidirectional characters`
	collision := `renamed: mcp_servers.github: the MCP servers a_evil and github both have a tool named create_issue; neither gets the name: they are a_evil__create_issue and github__create_issue; ` +
		`to give the name to one: [tools.create_issue] source = "mcp.a_evil.create_issue"; or name every server's tools so: tool_names = "{server}__{tool}"; or leave it out of one server with expose or disabled_tools`
	listedTwice := "skipped: mcp_servers.a_evil: the server lists twice_listed more than once, with definitions that may differ; left out"
	if diff := cmp.Diff([]string{collision, wantRefused, listedTwice}, errLines(up.Warnings)); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if err := os.WriteFile(down, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	refresh := r
	refresh.Refresh = true
	c, err := resolveIn(t, refresh, src)
	if got := toolNames(c); err != nil || !slices.Equal(got, []string{"a_evil__create_issue"}) {
		t.Fatalf("github down: %v, %v", err, got)
	}
	got := errLines(c.Warnings)
	if len(got) != 4 || got[0] != collision || got[1] != wantRefused || got[2] != listedTwice || !strings.HasPrefix(got[3], "skipped: mcp_servers.github: cannot start ") {
		t.Errorf("github down: warnings %q", got)
	}
	_, err = resolveIn(t, refresh, src+"[tools.create_issue]\nrun = \"unattended\"\n")
	want := []string{`tools.create_issue: the MCP servers a_evil and github both have a tool named create_issue; say which one these settings are for: source = "mcp.a_evil.create_issue" or source = "mcp.github.create_issue"`}
	if diff := cmp.Diff(want, errLines(err)); diff != "" {
		t.Errorf("settings while github is down (-want +got):\n%s", diff)
	}
}

// toolNames are the names of the tools of c.
func toolNames(c *resolve.Catalog) []string {
	var out []string
	for _, d := range c.Tools {
		out = append(out, d.Name)
	}
	return out
}
