package budget_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/budget"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/tokens"
	"github.com/strata-config/strata/resolve"
)

var writeDefinitions = flag.Bool("write-definitions", false, "write testdata/definitions.json from fixtures/budget (runs its MCP servers); then run testdata/reference.mjs")

// reference is one definition and its o200k_base count by an independent
// implementation (gpt-tokenizer, see testdata/reference.mjs).
type reference struct {
	Format string `json:"format"`
	Name   string `json:"name"`
	// Text is what is counted: the definition exactly as strata writes
	// it (compact JSON), as a string, so that no reader rewrites it.
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

// TestCountsAgainstReference holds the counts to gpt-tokenizer's,
// exactly, per definition and in total: server-everything's and
// server-filesystem's tools and described tools as each export writes
// them, and hostile text (long names, scripts other than Latin, emoji,
// long runs).
func TestCountsAgainstReference(t *testing.T) {
	refs := references(t)
	if len(refs) < 100 {
		t.Fatalf("%d reference definitions; the set has more", len(refs))
	}
	formats := map[string]int{}
	total, want := 0, 0
	for _, r := range refs {
		formats[r.Format]++
		got := tokens.Count(r.Text)
		total += got
		want += r.Tokens
		if got != r.Tokens {
			t.Errorf("%s %s: %d tokens, the reference counts %d", r.Format, r.Name, got, r.Tokens)
		}
	}
	if total != want {
		t.Errorf("in total: %d tokens, the reference counts %d", total, want)
	}
	for _, f := range []string{"strata", "openai", "anthropic", "mcp", "text"} {
		if formats[f] == 0 {
			t.Errorf("no reference definition in %s", f)
		}
	}
	t.Logf("%d definitions, %d tokens (reference %d)", len(refs), total, want)
}

// references reads the reference set, testdata/reference.json.
func references(t *testing.T) []reference {
	b, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	return refs
}

// TestWriteDefinitions writes the definitions of the reference set, with
// -write-definitions: each export's tools of fixtures/budget (both servers'
// tools, ten described ones), and hostile text.
func TestWriteDefinitions(t *testing.T) {
	if !*writeDefinitions {
		t.Skip("run with -write-definitions to write testdata/definitions.json")
	}
	root, _ := filepath.Abs("../fixtures/budget")
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(root), strata.TrustWorkspace(), strata.Environ(os.Environ()))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cat, err := w.Resolve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var keep []resolve.Definition
	described := 0
	for _, d := range cat.Tools {
		if d.Exec.Kind == resolve.ExecMCP || described < 10 && strings.HasSuffix(d.Name, "_report") {
			if d.Exec.Kind != resolve.ExecMCP {
				described++
			}
			keep = append(keep, d)
		}
	}
	keep = append(keep, hostile()...)
	sub := &resolve.Catalog{Tools: keep}
	var out []reference
	for _, f := range []export.Dialect{export.Strata, export.OpenAI, export.Anthropic, export.MCP} {
		wr, err := export.Write(sub, f, config.Budget{OpenAI: config.ExportLimits{Tools: 1000, Rename: true}, Anthropic: config.ExportLimits{Rename: true}, MCP: config.ExportLimits{Rename: true}})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range wr.Entries {
			out = append(out, reference{Format: string(f), Name: e.Name, Text: string(e.JSON)})
		}
	}
	for i, s := range hostileText() {
		out = append(out, reference{Format: "text", Name: fmt.Sprintf("text-%d", i), Text: s})
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/definitions.json", append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = budget.Encoding
}

// hostile are definitions a stranger's server could list: long names,
// names and text in other scripts, emoji, long runs of one letter.
func hostile() []resolve.Definition {
	schema := resolve.MustSchema(`{"type":"object","properties":{"路径":{"type":"string","description":"ファイルのパス — путь к файлу"}}}`)
	long := strings.Repeat("a_very_long_tool_name_", 6)[:128]
	return []resolve.Definition{
		{Name: long, Source: "mcp.hostile", Summary: "A name of 128 characters.", Description: "Its name is as long as MCP allows.", InputSchema: schema},
		{Name: "读取文件", Source: "mcp.hostile", Summary: "读取一个文件的内容。", Description: "返回文件的全部内容，编码为 UTF-8。", InputSchema: schema},
		{Name: "emoji_tool", Source: "mcp.hostile", Summary: "🚀 Launch 🎉 the 👩‍👩‍👧‍👦 family 🏳️‍🌈 flags 🇫🇷🇯🇵", Description: "Zalgo: Z̷̢̛a̶͇͠l̸̨̛g̵̣͝o̴̧͝ and combining marks e\u0301\u0302\u0303.", InputSchema: schema},
		{Name: "rtl_text", Source: "mcp.hostile", Summary: "اقرأ الملف من القرص", Description: "קרא את הקובץ \u202eevil\u202c and \u200bzero\u200bwidth", InputSchema: schema},
		{Name: "long_run", Source: "mcp.hostile", Summary: strings.Repeat("a", 3000), Description: strings.Repeat("ab1 ", 500) + strings.Repeat(" ", 300) + strings.Repeat("9", 400), InputSchema: schema},
	}
}

// hostileText are strings counted as they are (JSON-quoted).
func hostileText() []string {
	return []string{
		strings.Repeat("x", 10000),
		strings.Repeat("🙂", 500),
		"mixed\tcontrols\n\r\n\u0085\u2028 and \\ escapes \" '",
		strings.Repeat("The quick brown fox jumps over the lazy dog. ", 200),
		"ĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĦħĨĩĪīĬĭĮįİıĲĳĴĵĶķĸĹĺĻļĽľĿŀŁł",
		"def f(x):\n    return {\"a\": [1, 2, 3], 'b': x ** 2}  # comment\n",
	}
}

// TestMeasureHostileDescription: the tokenizer's regular expression is
// quadratic on long runs of whitespace that hold line breaks (256 KB of
// "\n " as raw text took 151 s); strata counts only what an export writes,
// JSON, where line breaks are escaped, so a server's description made of
// such runs counts in linear time. The test holds the property the bound
// rests on: no definition a dialect writes holds a raw line break.
func TestMeasureHostileDescription(t *testing.T) {
	desc := strings.Repeat("\n \r\n\t\u2028\u0085 ", 256<<10/12)
	d := resolve.Definition{Name: "hostile", Source: "mcp.x", Summary: "S.", Description: desc, Exec: resolve.Exec{Kind: resolve.ExecMCP, Server: "x", Tool: "hostile"},
		InputSchema: resolve.MustSchema(`{"type":"object","properties":{}}`), Upstream: json.RawMessage(`{"name":"hostile","description":` + mustJSON(desc) + `,"inputSchema":{"type":"object"}}`)}
	for _, f := range []export.Dialect{export.Strata, export.OpenAI, export.Anthropic, export.MCP} {
		w, err := export.Write(&resolve.Catalog{Tools: []resolve.Definition{d}}, f, config.Budget{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range w.Entries {
			if strings.ContainsAny(string(e.JSON), "\r\n") {
				t.Fatalf("%s writes a raw line break", f)
			}
		}
		if s := budget.Measure(w, config.Budget{}); s.Total < len(desc)/12 {
			t.Errorf("%s: %d tokens for %d bytes", f, s.Total, len(desc))
		}
	}
}

func mustJSON(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}
