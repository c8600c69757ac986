package lock

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/resolve"
)

// upstream is def served as its server listed it, with more keys.
func upstream(name, more string) resolve.Definition {
	d := def(name, "Fetch a URL.", `{"type":"object","properties":{"url":{"type":"string"}}}`)
	d.Upstream = json.RawMessage(`{"name":"` + name + `","description":"Fetch a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"}}}` + more + `}`)
	return d
}

// TestEntryCoversServed: every key of the tool as a client receives it is
// locked; a change of any of them is a change, named by its key.
func TestEntryCoversServed(t *testing.T) {
	base := `,"_meta":{"ui":{"resourceUri":"ui://fetch/view.html"}},"icons":[{"src":"data:,"}]`
	locked := EntryOf(upstream("fetch", base))
	if want := `{"_meta":{"ui":{"resourceUri":"ui://fetch/view.html"}},"icons":[{"src":"data:,"}]}`; locked.Other != want {
		t.Errorf("Other = %s, want %s", locked.Other, want)
	}
	for _, tc := range []struct {
		name, more string
		fields     []string
	}{
		{"_meta changed", `,"_meta":{"ui":{"resourceUri":"ui://fetch/phish.html"}},"icons":[{"src":"data:,"}]`, []string{"_meta"}},
		{"_meta removed", `,"icons":[{"src":"data:,"}]`, []string{"_meta"}},
		{"icons changed", `,"_meta":{"ui":{"resourceUri":"ui://fetch/view.html"}},"icons":[{"src":"https://tracker.example/p.png"}]`, []string{"icons"}},
		{"execution added", base + `,"execution":{"taskSupport":"required"}`, []string{"execution"}},
		{"a key of its own", base + `,"x":1`, []string{"x"}},
		{"an empty title", base + `,"title":""`, []string{"title"}},
		{"a title that is not a string", base + `,"title":7`, []string{"title"}},
		{"a title and _meta", `,"title":"Fetch","_meta":{},"icons":[{"src":"data:,"}]`, []string{"title", "_meta"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := EntryOf(upstream("fetch", tc.more))
			if now.Hash == locked.Hash {
				t.Errorf("the hash did not change")
			}
			var got []string
			for _, c := range Compare([]Entry{locked}, []Entry{now}) {
				got = append(got, c.Fields...)
			}
			if diff := cmp.Diff(tc.fields, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			// What is hashed is the tool as served, less its name.
			var wire map[string]any
			if err := json.Unmarshal([]byte(`{"name":"fetch","description":"Fetch a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"}}}`+tc.more+`}`), &wire); err != nil {
				t.Fatal(err)
			}
			delete(wire, "name")
			b, _ := json.Marshal(wire)
			if want := Canonical(b); string(served(now)) != want {
				t.Errorf("served = %s, want %s", served(now), want)
			}
		})
	}
	// The same keys in another order: no change.
	if c := Compare([]Entry{locked}, []Entry{EntryOf(upstream("fetch", `,"icons":[{"src":"data:,"}],"_meta":{"ui":{"resourceUri":"ui://fetch/view.html"}}`))}); len(c) != 0 {
		t.Errorf("keys in another order: %v", c)
	}
}

// TestDiffOtherKeys: lock --diff shows a change of another key at its
// JSON pointer under the key, and a new tool's other keys whole.
func TestDiffOtherKeys(t *testing.T) {
	locked := EntryOf(upstream("fetch", `,"_meta":{"ui":{"resourceUri":"ui://fetch/view.html"}}`))
	now := EntryOf(upstream("fetch", `,"_meta":{"ui":{"resourceUri":"ui://fetch/phish.html"}},"execution":{"taskSupport":"required"}`))
	fresh := EntryOf(upstream("fresh", `,"icons":[{"src":"https://tracker.example/p.png"}]`))
	got := Diff(Compare([]Entry{locked}, []Entry{now, fresh}))
	want := `changed fetch (mcp_servers.fs): _meta, execution
  _meta:
    changed /ui/resourceUri: "ui://fetch/view.html" -> "ui://fetch/phish.html"
  execution:
    added   (whole): {"taskSupport":"required"}
added fresh (mcp_servers.fs): new
  description:
    + Fetch a URL.
  parameters: url
  icons: [{"src":"https://tracker.example/p.png"}]
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
}

// TestHashOfVersion1: an entry without other keys hashes as version 1
// of the lock hashed it (the value below is the hash that version
// computed), so that a lock of version 1 holds back only the tools that
// have keys it did not lock.
func TestHashOfVersion1(t *testing.T) {
	d := def("cat", "Cat <all> & \u2028 more.", `{"type":"object","properties":{"n":{"type":"integer","maximum":1e3}}}`)
	d.Annotations = json.RawMessage(`{"readOnlyHint":true}`)
	d.OutputSchema = resolve.MustSchema(`{"type":"object"}`)
	d.Title = "Cat it"
	if got, want := EntryOf(d).Hash, "sha256:99ec31e7c541d0b88fa7e6b7bc9afa133dd8ba14635d66e1d76d6600228cee86"; got != want {
		t.Errorf("Hash = %s, want version 1's %s", got, want)
	}
}

// TestVersion1: a lock of version 1 reads, says it is outdated (what it
// does not lock and what to run), and holds back a tool that has keys it
// did not lock, not one that has none.
func TestVersion1(t *testing.T) {
	plain := def("read", "Read a file.", `{"type":"object","properties":{"path":{"type":"string"}}}`)
	withMeta := upstream("fetch", `,"_meta":{"ui":{"resourceUri":"ui://fetch/view.html"}}`)
	v1 := EntryOf(withMeta)
	v1.Other = "" // what version 1 locked of it
	v1.Hash = Hash(v1)
	b, err := Render([]Entry{v1, EntryOf(plain)})
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.Replace(string(b), "version = 2\n", "version = 1\n", 1))
	f, err := ReadBytes("strata.lock", b, codec.Limits{})
	if err != nil {
		t.Fatalf("a lock of version 1: %v\n%s", err, b)
	}
	o := f.Outdated()
	if o == nil || o.Line == 0 || !strings.Contains(o.Error(), "_meta, icons, execution") || !strings.Contains(o.Error(), "strata lock --diff") {
		t.Errorf("Outdated = %v, want a positioned warning that names the keys and the fix", o)
	}
	var got []string
	for _, c := range Verify(&resolve.Catalog{Tools: []resolve.Definition{withMeta, plain}}, f) {
		got = append(got, c.String())
	}
	if diff := cmp.Diff([]string{"fetch changed since it was locked: _meta"}, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	now, err := Render(Entries(&resolve.Catalog{Tools: []resolve.Definition{plain}}))
	if err != nil {
		t.Fatal(err)
	}
	if f, err := ReadBytes("strata.lock", now, codec.Limits{}); err != nil || f.Outdated() != nil {
		t.Errorf("a lock of this version: %v, outdated %v", err, f.Outdated())
	}
}

// TestOtherProblems: other keys that are not an object, or that repeat a
// key the entry writes on its own, are refused where they are written.
func TestOtherProblems(t *testing.T) {
	good, err := Render([]Entry{EntryOf(upstream("fetch", `,"_meta":{"a":1}`))})
	if err != nil {
		t.Fatal(err)
	}
	const q = "'''"
	for _, tc := range []struct{ name, other, want string }{
		{"not an object", `[1]`, "tools.fetch.other: not a JSON object"},
		{"the description again", `{"_meta": {"a": 1}, "description": "Hi."}`, `tools.fetch.other: it holds "description", which the entry writes as description`},
		{"the name", `{"_meta": {"a": 1}, "name": "x"}`, `tools.fetch.other: it holds "name"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := strings.Index(string(good), "other = "+q)
			if i < 0 {
				t.Fatalf("no other keys written:\n%s", good)
			}
			src := string(good[:i]) + "other = " + q + "\n" + tc.other + "\n" + q + "\n"
			_, err := ReadBytes("strata.lock", []byte(src), codec.Limits{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadBytes = %v, want %q\n%s", err, tc.want, src)
			}
		})
	}
}

// TestUnlisted: the locked tools of a source that did not list its tools
// are Unlisted, held back by nothing, and Diff says so in one line a
// source, before the other changes.
func TestUnlisted(t *testing.T) {
	schema := `{"type":"object"}`
	gh := func(name string) resolve.Definition {
		d := def(name, "GitHub.", schema)
		d.Exec = resolve.Exec{Kind: resolve.ExecMCP, Server: "gh", Tool: name, Key: "mcp_servers.gh"}
		return d
	}
	locked := Entries(&resolve.Catalog{Tools: []resolve.Definition{gh("issue"), gh("pr"), def("read", "Read.", schema), def("gone", "Gone.", schema)}})
	now := Entries(&resolve.Catalog{Tools: []resolve.Definition{def("read", "Read. Then more.", schema)}})
	changes := Unlist(Compare(locked, now), func(e Entry) bool { return e.Source == "mcp_servers.gh" })
	var kinds []string
	for _, c := range changes {
		kinds = append(kinds, c.Tool+" "+string(c.Kind))
		if c.Kind == Unlisted && c.Held() {
			t.Errorf("%s: held back", c.Tool)
		}
	}
	if diff := cmp.Diff([]string{"gone removed", "issue unlisted", "pr unlisted", "read changed"}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	got := Diff(changes)
	want := "unlisted mcp_servers.gh: its 2 locked tools were not compared: it did not list its tools\nremoved gone (mcp_servers.fs)\nchanged read (mcp_servers.fs): description\n  description:\n"
	if !strings.HasPrefix(got, want) || strings.Count(got, "mcp_servers.gh") != 1 {
		t.Errorf("Diff:\n%s\nwant it to begin:\n%s", got, want)
	}
	if got, want := UnlistedLine("mcp_servers.gh", 1), "mcp_servers.gh did not list its tools: its locked tool was not compared"; got != want {
		t.Errorf("UnlistedLine = %q, want %q", got, want)
	}
}

// TestUnlistWhy: the locked tools of a source that gave no tools for a
// reason the host names are Unlisted with it, which their String, the
// one line a source and Diff say; a tool of a source that gave tools is
// still Removed.
func TestUnlistWhy(t *testing.T) {
	schema := `{"type":"object"}`
	of := func(server, name string) resolve.Definition {
		d := def(name, "A tool.", schema)
		d.Exec = resolve.Exec{Kind: resolve.ExecMCP, Server: server, Tool: name, Key: "mcp_servers." + server}
		return d
	}
	locked := Entries(&resolve.Catalog{Tools: []resolve.Definition{of("gh", "issue"), of("gh", "pr"), of("off", "x"), of("down", "y"), def("gone", "Gone.", schema)}})
	why := map[string]string{
		"mcp_servers.gh":   "is left out by the policy servers.allow at /etc/strata/policy.toml:4:11 (reviewed servers only)",
		"mcp_servers.off":  "is not enabled (enabled = false)",
		"mcp_servers.down": NotListed,
	}
	changes := UnlistWhy(Compare(locked, nil), func(e Entry) string { return why[e.Source] })
	var got []string
	for _, c := range changes {
		got = append(got, string(c.Kind)+": "+c.String())
	}
	want := []string{
		"removed: gone is locked but no longer in the catalog",
		"unlisted: issue is locked, and its source (mcp_servers.gh) is left out by the policy servers.allow at /etc/strata/policy.toml:4:11 (reviewed servers only)",
		"unlisted: pr is locked, and its source (mcp_servers.gh) is left out by the policy servers.allow at /etc/strata/policy.toml:4:11 (reviewed servers only)",
		"unlisted: x is locked, and its source (mcp_servers.off) is not enabled (enabled = false)",
		"unlisted: y is locked, and its source (mcp_servers.down) did not list its tools",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{
		"mcp_servers.down did not list its tools: its locked tool was not compared",
		"mcp_servers.gh is left out by the policy servers.allow at /etc/strata/policy.toml:4:11 (reviewed servers only): its 2 locked tools were not compared",
		"mcp_servers.off is not enabled (enabled = false): its locked tool was not compared",
	}, UnlistedLines(changes)); diff != "" {
		t.Errorf("UnlistedLines (-want +got):\n%s", diff)
	}
	wantDiff := "unlisted mcp_servers.down: its locked tool was not compared: it did not list its tools\n" +
		"unlisted mcp_servers.gh: its 2 locked tools were not compared: it is left out by the policy servers.allow at /etc/strata/policy.toml:4:11 (reviewed servers only)\n" +
		"unlisted mcp_servers.off: its locked tool was not compared: it is not enabled (enabled = false)\n" +
		"removed gone (mcp_servers.fs)\n"
	if got := Diff(changes); got != wantDiff {
		t.Errorf("Diff:\n%s\nwant:\n%s", got, wantDiff)
	}
}
