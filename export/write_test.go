package export

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/resolve"
)

func def(name, summary string, load config.LoadMode) resolve.Definition {
	return resolve.Definition{Name: name, Source: "local", Summary: summary, Description: summary, InputSchema: resolve.MustSchema(`{"type":"object","properties":{"path":{"type":"string"}}}`), Load: load}
}

func catalog(defs ...resolve.Definition) *resolve.Catalog {
	return &resolve.Catalog{Fingerprint: "sha256:x", Tools: defs}
}

// TestDeferLoading: the Anthropic export marks exactly the deferred tools
// defer_loading and adds Anthropic's tool search; OpenAI and MCP leave the
// deferred tools out and list search_tools; strata's own lists all.
func TestDeferLoading(t *testing.T) {
	c := catalog(def("a_read", "Read.", ""), def("b_deploy", "Deploy.", config.LoadDeferred), def("c_write", "Write.", ""), def("d_scale", "Scale.", config.LoadDeferred))
	tests := []struct {
		f         Dialect
		names     []string
		deferred  []string
		searchObj string
	}{
		{Anthropic, []string{"a_read", "b_deploy", "c_write", "d_scale", "tool_search_tool_regex"}, []string{"b_deploy", "d_scale"}, AnthropicToolSearch},
		{OpenAI, []string{"a_read", "c_write", SearchTool}, nil, ""},
		{MCP, []string{"a_read", "c_write", SearchTool}, nil, ""},
		{Strata, []string{"a_read", "b_deploy", "c_write", "d_scale"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.f), func(t *testing.T) {
			w, err := Write(c, tt.f, config.Budget{})
			if err != nil {
				t.Fatal(err)
			}
			var out any
			if err := json.Unmarshal(w.JSON(), &out); err != nil {
				t.Fatal(err)
			}
			list, _ := out.([]any)
			if m, ok := out.(map[string]any); ok {
				list, _ = m["tools"].([]any)
			}
			var names, deferred []string
			for _, item := range list {
				o := item.(map[string]any)
				name, _ := o["name"].(string)
				if fn, ok := o["function"].(map[string]any); ok {
					name = fn["name"].(string)
				}
				names = append(names, name)
				if v, ok := o["defer_loading"]; ok {
					if v != true {
						t.Errorf("%s: defer_loading = %v", name, v)
					}
					deferred = append(deferred, name)
				}
			}
			if diff := cmp.Diff(tt.names, names); diff != "" {
				t.Errorf("tools written (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.deferred, deferred); diff != "" {
				t.Errorf("defer_loading (-want +got):\n%s", diff)
			}
			if tt.searchObj != "" && string(w.Entries[len(w.Entries)-1].JSON) != tt.searchObj {
				t.Errorf("the search tool is %s, want %s", w.Entries[len(w.Entries)-1].JSON, tt.searchObj)
			}
		})
	}
}

// TestStableOrder: every export lists tools by name, and a change to one
// tool leaves the others' definitions and places as they were, so that a
// provider's prompt cache keeps the prefix before the changed tool.
func TestStableOrder(t *testing.T) {
	before := catalog(def("alpha", "A.", ""), def("beta", "B.", ""), def("gamma", "C.", ""), def("zeta", "Z.", ""))
	after := catalog(def("alpha", "A.", ""), def("beta", "B.", ""), def("gamma", "Changed.", ""), def("zeta", "Z.", ""))
	for _, f := range []Dialect{Strata, OpenAI, Anthropic, MCP} {
		t.Run(string(f), func(t *testing.T) {
			w1, err1 := Write(before, f, config.Budget{})
			w2, err2 := Write(after, f, config.Budget{})
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for i := range w1.Entries {
				same := string(w1.Entries[i].JSON) == string(w2.Entries[i].JSON)
				if want := w1.Entries[i].Name != "gamma"; same != want || w1.Entries[i].Name != w2.Entries[i].Name {
					t.Errorf("entry %d (%s): unchanged %v, want %v", i, w1.Entries[i].Name, same, want)
				}
			}
			a, b := string(w1.JSON()), string(w2.JSON())
			prefix := strings.Index(a, "gamma")
			if prefix < 0 || a[:prefix] != b[:prefix] {
				t.Errorf("the text before the changed tool changed")
			}
		})
	}
}

// TestRename: with rename, a name the provider refuses is written as one
// it takes, the same on every run and different for different names; the
// warning shows it. Without, the tool is left out.
func TestRename(t *testing.T) {
	long := strings.Repeat("x", 70)
	c := catalog(def("list.dir", "L.", ""), def("list dir", "L.", ""), def(long, "Long.", ""), def("ok_name", "OK.", ""))
	rule := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	w, err := Write(c, OpenAI, config.Budget{OpenAI: config.ExportLimits{Rename: true}})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Write(c, OpenAI, config.Budget{OpenAI: config.ExportLimits{Rename: true}})
	var names []string
	for i, e := range w.Entries {
		if !rule.MatchString(e.Name) {
			t.Errorf("%q is not an OpenAI name", e.Name)
		}
		if again.Entries[i].Name != e.Name {
			t.Errorf("renamed %q, then %q", e.Name, again.Entries[i].Name)
		}
		names = append(names, e.Name)
	}
	want := []string{"list_dir_" + hex8("list dir"), "list_dir_" + hex8("list.dir"), "ok_name", strings.Repeat("x", 55) + "_" + hex8(long)}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(names))); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if len(w.Notes) != 3 || !strings.Contains(w.Notes[0].Error(), "written for openai as") {
		t.Errorf("notes: %v", w.Notes)
	}
	w, err = Write(c, OpenAI, config.Budget{})
	if err != nil || len(w.Entries) != 1 || len(w.Notes) != 3 {
		t.Errorf("without rename: %d entries, notes %v, err %v", len(w.Entries), w.Notes, err)
	}
}

// TestToolLimit: more tools than the provider takes is an error that
// names the fixes; deferred tools do not count, the search tool does.
func TestToolLimit(t *testing.T) {
	var defs []resolve.Definition
	for i := range 130 {
		defs = append(defs, def("tool_"+strings.Repeat("a", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)), "T.", ""))
	}
	_, err := Write(catalog(defs...), OpenAI, config.Budget{})
	if err == nil || !strings.Contains(err.Error(), "130 tools for openai, which takes at most 128") || !strings.Contains(err.Error(), "--toolset") {
		t.Errorf("130 tools for OpenAI: %v", err)
	}
	if _, err := Write(catalog(defs...), Anthropic, config.Budget{}); err != nil {
		t.Errorf("Anthropic sets no limit of its own: %v", err)
	}
	for i := range 10 {
		defs[i].Load = config.LoadDeferred
	}
	if _, err := Write(catalog(defs...), OpenAI, config.Budget{}); err != nil {
		t.Errorf("120 tools and the search tool: %v", err)
	}
	if _, err := Write(catalog(defs...), OpenAI, config.Budget{OpenAI: config.ExportLimits{Tools: 100}}); err == nil {
		t.Error("a budget of 100 tools: no error")
	}
}

func hex8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// TestMCPToolJSONUpstream: a tool the config changes nothing of is its
// upstream JSON, shared rather than copied where it keeps its server's
// name, and that JSON with the name replaced where it is served under
// another.
func TestMCPToolJSONUpstream(t *testing.T) {
	const listed = `{"_meta":{"k":1},"name":"read","inputSchema":{"type":"object"},"icons":[]}`
	tests := []struct {
		name, tool, upstream, want string
		shared                     bool
	}{
		{"same name", "read", listed, listed, true},
		{"same name, escaped", "a<b", `{"name":"a\u003cb","inputSchema":{"type":"object"}}`, `{"name":"a\u003cb","inputSchema":{"type":"object"}}`, true},
		{"renamed", "fs__read", listed, `{"_meta":{"k":1},"name":"fs__read","inputSchema":{"type":"object"},"icons":[]}`, false},
		{"name not a string", "read", `{"name":1,"inputSchema":{"type":"object"}}`, `{"name":"read","inputSchema":{"type":"object"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := resolve.Definition{Name: tt.tool, InputSchema: resolve.MustSchema(`{"type":"object"}`), Upstream: json.RawMessage(tt.upstream)}
			got := MCPToolJSON(d)
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("MCPToolJSON (-want +got):\n%s", diff)
			}
			if shared := &got[0] == &d.Upstream[0]; shared != tt.shared {
				t.Errorf("shares the upstream JSON: %v, want %v", shared, tt.shared)
			}
		})
	}
}
