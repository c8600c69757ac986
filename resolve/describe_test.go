package resolve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/resolve"
)

// TestDescriptionOverrides: the description a user writes is what the
// model sees, in every export, with nothing put before it; {{description}}
// inserts the tool's own text once; the summary is a short form, never
// added to the text; where the user changes nothing the tool's text goes
// out as it wrote it (issue 24, point 2).
func TestDescriptionOverrides(t *testing.T) {
	const slug = "Turn a title into a lowercase URL slug. Words are joined with hyphens."
	found := resolve.Found{
		Described: map[string]resolve.Described{"slugify": {Path: "/t/slugify", Discovered: resolve.Discovered{Name: "slugify", Description: slug,
			InputSchema: resolve.MustSchema(`{"type":"object","properties":{"title":{"type":"string","description":"The title. Any case."}}}`)}}},
		Servers: map[string]map[string]resolve.Discovered{"fs": {"read_text_file": {Name: "read_text_file", Description: "Read a file as text. Only within allowed directories.",
			InputSchema: resolve.MustSchema(`{"type":"object"}`), Upstream: json.RawMessage(`{"name":"read_text_file","description":"Read a file as text. Only within allowed directories.","inputSchema":{"type":"object"},"_meta":{"k":1}}`)}}},
		Schemas: map[string]resolve.Discovered{"count": {Name: "count", Summary: "Count lines.", Description: "A last line without a newline counts.",
			InputSchema: resolve.MustSchema(`{"type":"object"}`)}},
	}
	const jp = "[tools.count]\nsource = \"local\"\ncommand = \"jp {{tool}} {{context}}\"\n"
	const fs = "[mcp_servers.fs]\ncommand = \"x\"\n"
	tests := []struct {
		name, layer, tool string
		summary, text     string // strata's summary; the description every export carries
		param             string // slugify's title description, when not ""
	}{
		{name: "no override: the tool's text as written", tool: "slugify",
			summary: "Turn a title into a lowercase URL slug.", text: slug},
		{name: "a description replaces the tool's", tool: "slugify", layer: "[tools.slugify]\ndescription = \"Make a URL slug.\"\n",
			summary: "Make a URL slug.", text: "Make a URL slug."},
		{name: "{{description}} inserts the tool's text once", tool: "slugify", layer: "[tools.slugify]\ndescription = \"Make a URL slug. {{description}}\"\n",
			summary: "Make a URL slug.", text: "Make a URL slug. " + slug},
		{name: "a summary and a description: the description alone", tool: "slugify", layer: "[tools.slugify]\nsummary = \"Slugs.\"\ndescription = \"Make a URL slug.\"\n",
			summary: "Slugs.", text: "Make a URL slug."},
		{name: "a summary alone takes the first sentence's place", tool: "slugify", layer: "[tools.slugify]\nsummary = \"Make a URL slug.\"\n",
			summary: "Make a URL slug.", text: "Make a URL slug.\n\nWords are joined with hyphens."},
		{name: "an MCP tool's description replaced", tool: "read_text_file", layer: fs + "[tools.read_text_file]\ndescription = \"Read a note. {{description}}\"\n",
			summary: "Read a note.", text: "Read a note. Read a file as text. Only within allowed directories."},
		{name: "an MCP tool untouched", tool: "read_text_file", layer: fs,
			summary: "Read a file as text.", text: "Read a file as text. Only within allowed directories."},
		{name: "JP's summary and description, as written", tool: "count", layer: jp,
			summary: "Count lines.", text: "Count lines.\n\nA last line without a newline counts."},
		{name: "JP's tool: a description replaces both", tool: "count", layer: jp + "description = \"Count the lines of a file.\"\n",
			summary: "Count lines.", text: "Count the lines of a file."},
		{name: "JP's tool: {{description}} is its text as written", tool: "count", layer: jp + "description = \"{{description}} Fast.\"\n",
			summary: "Count lines.", text: "Count lines.\n\nA last line without a newline counts. Fast."},
		{name: "a parameter's description replaces", tool: "slugify", layer: "[tools.slugify.parameters.title]\nsummary = \"Short.\"\ndescription = \"What to slug. {{description}}\"\n",
			summary: "Turn a title into a lowercase URL slug.", text: slug, param: "What to slug. The title. Any case."},
		{name: "a parameter's summary alone takes the first sentence's place", tool: "slugify", layer: "[tools.slugify.parameters.title]\nsummary = \"The headline.\"\n",
			summary: "Turn a title into a lowercase URL slug.", text: slug, param: "The headline.\n\nAny case."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := built(t, tt.layer, found)
			d, ok := c.Tool(tt.tool)
			if !ok {
				t.Fatalf("no tool %s", tt.tool)
			}
			if diff := cmp.Diff([]string{tt.summary, tt.text}, []string{d.Summary, d.Description}); diff != "" {
				t.Errorf("summary and description (-want +got):\n%s", diff)
			}
			for _, f := range []export.Dialect{export.OpenAI, export.Anthropic, export.MCP} {
				b, _, err := export.Marshal(c, f)
				if err != nil {
					t.Fatal(err)
				}
				if got := exportedText(t, f, b, tt.tool); got != tt.text {
					t.Errorf("%s exports %q, want %q", f, got, tt.text)
				}
			}
			if tt.param != "" {
				var s struct {
					Properties map[string]struct{ Description string }
				}
				if err := json.Unmarshal(d.InputSchema.JSON(), &s); err != nil {
					t.Fatal(err)
				}
				if got := s.Properties["title"].Description; got != tt.param {
					t.Errorf("title's description %q, want %q", got, tt.param)
				}
			}
		})
	}
}

// TestUntouchedUpstream: where the config changes nothing of a tool, the
// MCP export is the tool as its server listed it, every key kept.
func TestUntouchedUpstream(t *testing.T) {
	const listed = `{"name":"read_text_file","description":"Read a file as text.\n\nOnly within allowed directories.","inputSchema":{"type":"object"},"_meta":{"k":1}}`
	found := resolve.Found{Servers: map[string]map[string]resolve.Discovered{"fs": {"read_text_file": {Name: "read_text_file",
		Description: "Read a file as text.\n\nOnly within allowed directories.", InputSchema: resolve.MustSchema(`{"type":"object"}`), Upstream: json.RawMessage(listed)}}}}
	cfg, err := layerConfig("[mcp_servers.fs]\ncommand = \"x\"\n")
	if err != nil {
		t.Fatal(err)
	}
	c, err := resolve.Build(cfg, found)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := c.Tool("read_text_file")
	if got := string(export.MCPToolJSON(d)); got != listed {
		t.Errorf("MCP export\n got %s\nwant %s", got, listed)
	}
}

// TestOverriddenUpstream: where the config changes what a model sees of a
// server's tool (its summary, description or parameters), the MCP export
// is the tool as its server listed it with those changes, every other key
// kept (_meta, icons, execution, keys strata does not know): an override
// does not lose what the server said of the tool, nor make a lock see a
// change nobody made.
func TestOverriddenUpstream(t *testing.T) {
	const listed = `{"name":"write_file","description":"Write a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}},"execution":{"taskSupport":"forbidden"},"_meta":{"k":1},"icons":[{"src":"https://example.com/i.png"}],"x-own":true}`
	found := resolve.Found{Servers: map[string]map[string]resolve.Discovered{"fs": {"write_file": {Name: "write_file",
		Description: "Write a file.", InputSchema: resolve.MustSchema(`{"type":"object","properties":{"path":{"type":"string"}}}`), Upstream: json.RawMessage(listed)}}}}
	kept := map[string]string{"execution": `{"taskSupport":"forbidden"}`, "_meta": `{"k":1}`, "icons": `[{"src":"https://example.com/i.png"}]`, "x-own": `true`}
	tests := []struct {
		name        string
		layer       string
		description string
		schema      string
	}{
		{"description", "[tools.write_file]\ndescription = \"Write a file. {{description}}\"\n", "Write a file. Write a file.", `{"type":"object","properties":{"path":{"type":"string"}}}`},
		{"summary", "[tools.write_file]\nsummary = \"Writes.\"\n", "Writes.", `{"type":"object","properties":{"path":{"type":"string"}}}`},
		{"a parameter's bound", "[tools.write_file.parameters.path]\nmax_length = 100\n", "Write a file.", `{"type":"object","properties":{"path":{"type":"string","maxLength":100}}}`},
		{"a path parameter", "[tools.write_file.parameters.path]\ntype = \"path\"\n", "Write a file.", `{"type":"object","properties":{"path":{"type":"string"}}}`},
		{"renamed", "mcp_servers.fs.expose = \"none\"\n[tools.fs_write]\nsource = \"mcp.fs.write_file\"\ndescription = \"Writes.\"\n", "Writes.", `{"type":"object","properties":{"path":{"type":"string"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := layerConfig("mcp_servers.fs.command = \"x\"\n" + tt.layer)
			if err != nil {
				t.Fatal(err)
			}
			c, err := resolve.Build(cfg, found)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Tools) != 1 {
				t.Fatalf("%d tools, want 1", len(c.Tools))
			}
			d := c.Tools[0]
			var got map[string]json.RawMessage
			if err := json.Unmarshal(export.MCPToolJSON(d), &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"name": strconv.Quote(d.Name), "description": strconv.Quote(tt.description), "inputSchema": tt.schema}
			for k, v := range kept {
				want[k] = v
			}
			gotText := map[string]string{}
			for k, v := range got {
				var b bytes.Buffer
				if err := json.Compact(&b, v); err != nil {
					t.Fatal(err)
				}
				gotText[k] = b.String()
			}
			if diff := cmp.Diff(want, gotText); diff != "" {
				t.Errorf("MCP export (-want +got):\n%s", diff)
			}
		})
	}
}

// exportedText returns the description dialect f gives tool in the
// export b.
func exportedText(t *testing.T, f export.Dialect, b []byte, tool string) string {
	t.Helper()
	switch f {
	case export.OpenAI:
		var list []struct {
			Function struct{ Name, Description string }
		}
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if x.Function.Name == tool {
				return x.Function.Description
			}
		}
	case export.Anthropic:
		var list []struct{ Name, Description string }
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		for _, x := range list {
			if x.Name == tool {
				return x.Description
			}
		}
	case export.MCP:
		var list struct {
			Tools []struct{ Name, Description string }
		}
		if err := json.Unmarshal(b, &list); err != nil {
			t.Fatal(err)
		}
		for _, x := range list.Tools {
			if x.Name == tool {
				return x.Description
			}
		}
	}
	t.Fatalf("%s exports no %s", f, tool)
	return ""
}

// TestCatalogRoom: a catalog keeps room for the tools that may join it,
// not for every tool its servers list: a server of 1,000 tools that
// exposes two gives a catalog of two with little room beside them, and
// one that exposes all, room for all.
func TestCatalogRoom(t *testing.T) {
	tools := map[string]resolve.Discovered{}
	for i := range 1000 {
		name := fmt.Sprintf("t%d", i)
		tools[name] = resolve.Discovered{Name: name, InputSchema: resolve.MustSchema(`{"type":"object"}`)}
	}
	found := resolve.Found{Servers: map[string]map[string]resolve.Discovered{"big": tools}}
	for _, tt := range []struct {
		name, expose string
		n, most      int
	}{
		{"two exposed", `["t1", "t2"]`, 2, 16},
		{"none exposed", `"none"`, 0, 16},
		{"all exposed", `"all"`, 1000, 1016},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := built(t, "[mcp_servers.big]\ncommand = \"x\"\nexpose = "+tt.expose+"\n", found)
			if len(c.Tools) != tt.n || cap(c.Tools) > tt.most {
				t.Errorf("%d tools in room for %d, want %d in room for at most %d", len(c.Tools), cap(c.Tools), tt.n, tt.most)
			}
		})
	}
}

// TestBuildLeavesListedTexts: a listed tool's texts are one buffer that
// discovery, the catalog and serve share (see mcpclient.ToolOf); resolving
// it with overrides of every kind, under another name, and exporting it in
// every dialect leaves that buffer as it was read.
func TestBuildLeavesListedTexts(t *testing.T) {
	listed := []byte(`{"name":"read","description":"Read a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"A path."},"n":{"type":"integer","maximum":100},"mode":{"type":"string","enum":["a","b","c"]}},"required":["path"]},"annotations":{"readOnlyHint":true},"_meta":{"k":1}}`)
	was := bytes.Clone(listed)
	slice := func(key string) []byte {
		i := bytes.Index(listed, []byte(`"`+key+`":`)) + len(key) + 3
		d := json.NewDecoder(bytes.NewReader(listed[i:]))
		var raw json.RawMessage
		if err := d.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		return listed[i : i+len(raw) : i+len(raw)]
	}
	schema, err := resolve.ParseSchema(slice("inputSchema"))
	if err != nil {
		t.Fatal(err)
	}
	found := resolve.Found{Servers: map[string]map[string]resolve.Discovered{"fs": {"read": {Name: "read", Description: "Read a file.",
		InputSchema: schema, Annotations: slice("annotations"), Upstream: listed}}}}
	for _, tt := range []struct{ layer, tool, has string }{
		{"", "read", `"maximum":100`},
		{"[tools.read]\ndescription = \"Read. {{description}}\"\n[tools.read.parameters.path]\ndescription = \"Where.\"\n[tools.read.parameters.n]\nmaximum = 10\nrequired = true\n[tools.read.parameters.mode]\nenum = [\"a\"]\n", "read", `"maximum":10}`},
		{"[tools.fs_read]\nsource = \"mcp.fs.read\"\n", "fs_read", `"maximum":100`},
		{"[tools.fs_read]\nsource = \"mcp.fs.read\"\n[tools.fs_read.parameters.path]\npattern = \"^src/\"\n", "fs_read", `"pattern":"^src/"`},
	} {
		layer := tt.layer
		c := built(t, "[mcp_servers.fs]\ncommand = \"x\"\n"+layer, found)
		d, ok := c.Tool(tt.tool)
		if !ok || !strings.Contains(d.InputSchema.String(), tt.has) {
			t.Fatalf("with the layer %q, %s's schema %s, want it with %s", layer, tt.tool, d.InputSchema, tt.has)
		}
		export.MCPToolJSON(d)
		for _, f := range []export.Dialect{export.OpenAI, export.Anthropic, export.MCP, export.Strata} {
			if _, _, err := export.Marshal(c, f); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(listed, was) {
			t.Fatalf("with the layer %q, the listed text became\n%s\nwas\n%s", layer, listed, was)
		}
	}
}

// built is the catalog of the tools found under the config of the layer
// text, which resolves without a problem.
func built(t *testing.T, layer string, found resolve.Found) *resolve.Catalog {
	t.Helper()
	cfg, err := layerConfig(layer)
	if err != nil {
		t.Fatal(err)
	}
	c, err := resolve.Build(cfg, found)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
