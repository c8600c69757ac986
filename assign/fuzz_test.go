package assign_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// FuzzAssign parses arbitrary text as an assignment and applies it over a
// base layer. It must not panic; a failed assignment must leave the layer
// as it was; Apply (which changes tables in place) and Layer (which builds
// a layer to merge) must agree; the result must survive a TOML round trip.
func FuzzAssign(f *testing.F) {
	for _, s := range []string{
		"foo+=bar", "foo.bar.1=qux", "foo:=42", `foo+:=["bar"]`,
		"tools.grep.run=unattended", "tools.grep.rnu=ask", "tools.grep.enable=false",
		"tools.grep.command.args.0=-w", "tools.grep.command.args.9=x", "tools.grep.options.max:=10",
		`tools.grep.options:={"a":{"b":[1,2.5,"c",null]}}`, "tools.grep:=null", "discover.dirs+=a,b\\,c",
		"discover.dirs.0=z", `{"unset":["tools.grep.run"],"tools":{"x":{"source":"builtin"}}}`,
		"tools.'*'.run=skip", `tools."a.b".summary=x`, "mcp_servers.fs.env.A=1", "tools.grep.parameters.p.items.enum:=[1,2]",
		"tools.grep.questions.q.answer:=true", "=", ":=", "a", "{", "tools.grep.options.t+=x",
		`tools.grep.options.tags:+={"value":["b"],"strategy":"prepend"}`, `tools.grep.options.limits:+={"value":{"lines":1,"z":2},"strategy":"keep"}`,
		`tools.grep.options.m:={"value":"x","strategy":"append","separator":"line"}`, `tools.grep.options:+={"limits":{"value":{"a":1},"strategy":"merge"}}`,
		`tools.grep.options.limits.lines:+={"value":[1],"strategy":"wrap","prepend":[0],"fill":[5]}`, `tools.grep.options.tags:+={"value":[1],"strategy":"apend"}`,
		"tools.grep.enable.allow_toggle=never", "tools.grep.enable.allow_toggle=false", "tools.grep.enable.state=true", "tools.grep.enable=explicit",
		`tools.grep.enable:+={"allow_toggle":"if_named"}`, "tools.grep.enable.state:=null",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := layertest.MustDecode(t, "base.toml", baseLayer, partial.TOML)
		a, err := assign.Parse(s)
		if err != nil {
			return
		}
		before := clone(&p)
		l, lerr := assign.Layer(before, a)
		err = assign.Apply(&p, a)
		if (err == nil) != (lerr == nil) {
			t.Fatalf("%q: Apply error %v, Layer error %v", s, err, lerr)
		}
		if err == nil {
			want, _ := partial.Finalize(&p, config.Default())
			got, _ := partial.Finalize(merge.Layers(before, l), config.Default())
			if diff := layertest.Diff(want, got); diff != "" {
				t.Fatalf("%q: merge(base, Layer) differs from Apply (-Apply +Layer):\n%s", s, diff)
			}
		}
		if err != nil {
			if !equal(&p, before) {
				t.Fatalf("%q failed (%v) but changed the layer", s, err)
			}
			for _, e := range diag.All(err) {
				if e.Msg == "" {
					t.Fatalf("%q: a problem without a message: %#v", s, e)
				}
			}
			return
		}
		text, err := codec.Encode(&p, partial.TOML)
		if err != nil {
			t.Fatalf("%q: the result cannot be written: %v", s, err)
		}
		var back config.Partial
		if err := codec.Decode("back.toml", text, partial.TOML, &back); err != nil {
			t.Fatalf("%q: the result does not read back: %v\n%s", s, err, text)
		}
		if !equal(&p, &back) {
			t.Fatalf("%q: the result reads back differently:\n%s", s, text)
		}
	})
}

// FuzzEnv reads a fuzzed variable as an override. It must not panic; a
// name it accepts, written back with '__' between its keys, must read as
// the same path; applying it must change nothing or give a layer that
// survives a round trip.
// meant is a did-you-mean that names a variable and the path it reads as.
var meant = regexp.MustCompile(`^did you mean (\S+) \((.+)\)\?$`)

func FuzzEnv(f *testing.F) {
	for _, s := range [][2]string{
		{"TOOLS_GREP_RUN", "ask"}, {"TOOLS_FS_MODIFY_FILE_RUN", "skip"}, {"TOOLS_GREP_OPTIONS_NEW_KEY", "1"},
		{"TOOLS__GREP__RUN", "+x"}, {"DISCOVER_DIRS", "+a,b"}, {"TOOLS_GREP_COMMAND_ARGS_0", "-w"},
		{"MCP_SERVERS_FS_ENV", `:+{"A":"1"}`}, {"TOOLS_GREP", `:{"run":"ask"}`}, {"TOOLS__", "x"}, {"TOLS", "x"},
		{"TOOLS_GREP_ENABLE", ":true"}, {"TOOLS_GREP_SUMMARY", `\+lit`}, {"TOOLS_GREP_PARAMETERS_P_ITEMS_TYPE", "string"},
		{"TOOLS_GREP_ENABLE_ALLOW_TOGGLE", "if_named"}, {"TOOLS_GREP_ENABLE", "explicit"}, {"TOOLS_GREP_ENABLE_STATE", "false"},
		{"TOOLS_GREP_OPTIONS_TAGS", `:+{"value":["z"],"strategy":"append"}`}, {"TOOLS_GREP_OPTIONS_LIMITS", `+:{"value":{"q":1},"strategy":"keep"}`},
		{"TOOLS_WORD_COUNT_RNU", "ask"}, {"TOLS_GERP_RNU", "ask"}, {"MCP_SERVERS_FS_STARTUP_TIMEOUT_SCE", "5"}, {"TOOLS__FS_MODIFY_FILE__RNU", "ask"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		if strings.ContainsAny(name, "=\x00") {
			return
		}
		p := layertest.MustDecode(t, "base.toml", baseLayer, partial.TOML)
		as, err := assign.Env(&p, "STRATA", []string{"STRATA_" + name + "=" + value})
		// A did-you-mean that names a variable and its path is right.
		for _, e := range diag.All(err) {
			if m := meant.FindStringSubmatch(e.Hint); m != nil {
				fixed, err := assign.Env(&p, "STRATA", []string{m[1] + "=" + value})
				if err != nil || len(fixed) != 1 || fixed[0].Path.String() != m[2] {
					t.Fatalf("%s: %s, but %s reads as %v (%v)", name, e.Hint, m[1], fixed, err)
				}
			}
		}
		if err != nil || len(as) != 1 {
			return
		}
		a := as[0]
		var keys []string
		for _, k := range a.Path {
			if strings.Contains(k, "_") || strings.ToLower(k) != k {
				return // '__' cannot separate keys that hold '_'
			}
			keys = append(keys, strings.ToUpper(k))
		}
		again, err := assign.Env(&p, "STRATA", []string{"STRATA_" + strings.Join(keys, "__") + "=" + value})
		if len(a.Path) > 1 && (err != nil || len(again) != 1 || again[0].Path.String() != a.Path.String()) {
			t.Fatalf("%s read as %s, but %s reads as %v (%v)", name, a.Path, strings.Join(keys, "__"), again, err)
		}
		before := clone(&p)
		if err := assign.Apply(&p, a); err != nil {
			if !equal(&p, before) {
				t.Fatalf("%s=%s failed but changed the layer", name, value)
			}
			return
		}
		text, err := codec.Encode(&p, partial.TOML)
		if err != nil {
			t.Fatal(err)
		}
		var back config.Partial
		if err := codec.Decode("back.toml", text, partial.TOML, &back); err != nil || !equal(&p, &back) {
			t.Fatalf("%s=%s: the result does not read back (%v):\n%s", name, value, err, text)
		}
	})
}
