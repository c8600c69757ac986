package diag_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

func TestErrorText(t *testing.T) {
	tests := []struct {
		name       string
		err        *diag.Error
		one, multi string
	}{
		{
			name: "everything",
			err:  withText(&diag.Error{Source: "a.toml", Line: 2, Column: 5, Path: partial.Path{"tools", "a.b", "rnu"}, Msg: "unknown key", Hint: "did you mean run?"}, "[tools.'a.b']\n    rnu = 1\n", 18),
			one:  "a.toml:2:5: tools.'a.b'.rnu: unknown key; did you mean run?",
			multi: "error: a.toml:2:5: tools.'a.b'.rnu: unknown key; did you mean run?\n" +
				" 2 |     rnu = 1\n" +
				"   |     ^",
		},
		{
			name:  "source without position",
			err:   &diag.Error{Source: "--cfg #2", Path: partial.Path{"tools"}, Msg: "expected a table"},
			one:   "--cfg #2: tools: expected a table",
			multi: "error: --cfg #2: tools: expected a table",
		},
		{
			name:  "message only",
			err:   &diag.Error{Msg: "nothing to say"},
			one:   "nothing to say",
			multi: "error: nothing to say",
		},
		{
			name:  "a warning says so",
			err:   &diag.Error{Severity: diag.SeverityWarning, Source: "/w", Msg: "workspace layers not applied: untrusted"},
			one:   "/w: workspace layers not applied: untrusted",
			multi: "warning: /w: workspace layers not applied: untrusted",
		},
		{
			name:  "what a hostile server said is escaped",
			err:   &diag.Error{Path: partial.Path{"mcp_servers", "evil"}, Msg: "cannot start: it said: \x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0g\x07\u009b31m\u202e\rstrata: all OK\nstrata: ok\xff", Hint: "fix\x1b[0m it"},
			one:   `mcp_servers.evil: cannot start: it said: \x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0g\x07\u009b31m\u202e\rstrata: all OK strata: ok\xff; fix\x1b[0m it`,
			multi: `error: mcp_servers.evil: cannot start: it said: \x1b[2J\x1b]0;pwned\x07\x1b]52;c;cm0g\x07\u009b31m\u202e\rstrata: all OK strata: ok\xff; fix\x1b[0m it`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.one, tt.err.Error()); diff != "" {
				t.Errorf("Error() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.multi, tt.err.Render()); diff != "" {
				t.Errorf("Render() (-want +got):\n%s", diff)
			}
		})
	}
}

// withText points e at text, at byte offset off.
func withText(e *diag.Error, text string, off int) *diag.Error {
	e.SetText([]byte(text), off)
	return e
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("a", 100) + "X" + strings.Repeat("b", 100)
	tests := []struct {
		name  string
		text  string
		off   int
		want  string // Snippet()
		caret string // the caret line of Render()
	}{
		{name: "first line", text: "a = 1\nb = 2\n", off: 4, want: "a = 1", caret: "    ^"},
		{name: "second line", text: "a = 1\r\nb = 2\r\n", off: 11, want: "b = 2", caret: "    ^"},
		{name: "no line end", text: "x", off: 0, want: "x", caret: "^"},
		{name: "at the end", text: "a = ", off: 4, want: "a = ", caret: "    ^"},
		{name: "tabs kept for the caret", text: "\t\tk = 1", off: 2, want: "\t\tk = 1", caret: "\t\t^"},
		{name: "inside a multi-byte character", text: "k = \"é\"", off: 6, want: `k = "é"`, caret: "     ^"},
		{name: "a stray continuation byte", text: "00\n\xb4", off: 3, want: "\uFFFD", caret: "^"},
		{name: "after a truncated character", text: "k\xe2\x82x", off: 3, want: "k\uFFFD\uFFFDx", caret: "   ^"},
		{name: "long line cut around the column", text: long, off: 100, want: "…" + strings.Repeat("a", 80) + "X" + strings.Repeat("b", 79) + "…", caret: strings.Repeat(" ", 81) + "^"},
		{name: "long line cut near its start", text: long, off: 3, want: "aaa" + strings.Repeat("a", 97) + "X" + strings.Repeat("b", 59) + "…", caret: "   ^"},
		{name: "long line cut near its end", text: long, off: 198, want: "…" + strings.Repeat("a", 59) + "X" + strings.Repeat("b", 100), caret: strings.Repeat(" ", 158) + "^"},
		{name: "a line of 160 characters is whole", text: long[:160] + "\n", off: 150, want: long[:160], caret: strings.Repeat(" ", 150) + "^"},
		{name: "control characters and invalid UTF-8", text: "k = \"\x1b[2J\xff\"", off: 4, want: "k = \"\uFFFD[2J\uFFFD\"", caret: "    ^"},
		{name: "no text", text: "", off: -1, want: "", caret: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &diag.Error{Source: "f", Line: 1, Column: 1, Msg: "m"}
			if tt.off >= 0 {
				e.SetText([]byte(tt.text), tt.off)
			}
			if diff := cmp.Diff(tt.want, e.Snippet()); diff != "" {
				t.Errorf("Snippet() (-want +got):\n%s", diff)
			}
			lines := strings.Split(e.Render(), "\n")
			caret := ""
			if len(lines) == 3 {
				caret = strings.TrimPrefix(lines[2], "   | ")
			}
			if diff := cmp.Diff(tt.caret, caret); diff != "" {
				t.Errorf("caret line of Render() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorsShareTheirText: problems keep a reference to their document,
// not a copy of their line; cmp compares what they say.
func TestErrorsShareTheirText(t *testing.T) {
	text := []byte(`{"a": 1, "a": 2}`)
	a := withText(&diag.Error{Source: "f.json", Line: 1, Column: 10, Msg: "twice"}, string(text), 9)
	b := &diag.Error{Source: "f.json", Line: 1, Column: 10, Msg: "twice"}
	b.SetText(text, 9)
	if diff := cmp.Diff(diag.Errors{a}, diag.Errors{b}); diff != "" {
		t.Errorf("same problem (-want +got):\n%s", diff)
	}
	c := withText(&diag.Error{Source: "f.json", Line: 1, Column: 10, Msg: "twice"}, `{"a": 1, "b": 2}`, 9)
	if cmp.Equal(a, c) {
		t.Error("problems with different snippets compare equal")
	}
}

func TestCollector(t *testing.T) {
	problems := func(n int) []*diag.Error {
		out := make([]*diag.Error, n)
		for i := range out {
			out[i] = &diag.Error{Source: "f", Msg: fmt.Sprint("p", i)}
		}
		return out
	}
	tests := []struct {
		name    string
		max     int
		add     int
		kept    int
		summary string
		last    string
	}{
		{name: "none", max: 3, add: 0},
		{name: "under the limit", max: 3, add: 2, kept: 2, summary: "f: p0 (and 1 more problem)", last: "f: p1"},
		{name: "at the limit", max: 3, add: 3, kept: 3, summary: "f: p0 (and 2 more problems)", last: "f: p2"},
		{name: "one over", max: 3, add: 4, kept: 3, summary: "f: p0 (and 3 more problems)", last: "f: … and 1 more problem"},
		{name: "a flood", max: 3, add: 1237, kept: 3, summary: "f: p0 (and 1,236 more problems)", last: "f: … and 1,234 more problems"},
		{name: "zero Max keeps 100", max: 0, add: 150, kept: 100, summary: "f: p0 (and 149 more problems)", last: "f: … and 50 more problems"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := diag.Collector{Max: tt.max}
			for _, e := range problems(tt.add) {
				c.AddError(e)
			}
			if c.Len() != tt.add {
				t.Errorf("Len() = %d, want %d", c.Len(), tt.add)
			}
			err := c.Err()
			if tt.add == 0 {
				if err != nil {
					t.Errorf("Err() = %v, want nil", err)
				}
				return
			}
			all := diag.All(err)
			if got := len(all) - min(1, len(all)-tt.kept); got != tt.kept {
				t.Errorf("kept %d problems, want %d", got, tt.kept)
			}
			if got := err.Error(); got != tt.summary {
				t.Errorf("Error() = %q, want %q", got, tt.summary)
			}
			if got := all[len(all)-1].Error(); got != tt.last {
				t.Errorf("last problem %q, want %q", got, tt.last)
			}
			// A second pass that adds the first one's problems counts
			// those it left out.
			var again diag.Collector
			again.Max = tt.max
			again.Add(err)
			if again.Len() != tt.add {
				t.Errorf("a collector given the list counts %d problems, want %d", again.Len(), tt.add)
			}
		})
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := diag.Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCounted: a count and its noun, singular for one alone ("62 tokens
// in 1 tools" was written).
func TestCounted(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "tool", "0 tools"},
		{1, "tool", "1 tool"},
		{2, "tool", "2 tools"},
		{1, "more problem", "1 more problem"},
		{1234, "token", "1,234 tokens"},
	} {
		if got := diag.Counted(c.n, c.noun); got != c.want {
			t.Errorf("Counted(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

func TestErrorsSummaryAndAll(t *testing.T) {
	a := &diag.Error{Msg: "a"}
	b := &diag.Error{Msg: "b"}
	c := &diag.Error{Msg: "c"}
	tests := []struct {
		name string
		errs diag.Errors
		want string
	}{
		{"one", diag.Errors{a}, "a"},
		{"two", diag.Errors{a, b}, "a (and 1 more problem)"},
		{"three", diag.Errors{a, b, c}, "a (and 2 more problems)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.errs.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			wrapped := fmt.Errorf("loading: %w", tt.errs)
			if got := diag.All(wrapped); len(got) != len(tt.errs) || got[0] != a {
				t.Errorf("All(wrapped) = %v, want the %d problems", got, len(tt.errs))
			}
			var one *diag.Error
			if !errors.As(wrapped, &one) || one != a {
				t.Errorf("errors.As found %v, want the first problem", one)
			}
		})
	}
	// The last problem names no source when the others name several.
	mixed := diag.Collector{Max: 2}
	for _, src := range []string{"a", "b", "c"} {
		mixed.AddError(&diag.Error{Source: src, Msg: "m"})
	}
	if all := diag.All(mixed.Err()); all[len(all)-1].Error() != "… and 1 more problem" {
		t.Errorf("last problem of several sources: %q", all[len(all)-1].Error())
	}
	if got := diag.All(errors.New("plain")); len(got) != 1 || got[0].Msg != "plain" {
		t.Errorf("All(plain error) = %v", got)
	}
	if got := diag.All(nil); got != nil {
		t.Errorf("All(nil) = %v", got)
	}
}

func TestAllKeepsTheCause(t *testing.T) {
	plain := errors.New("plain")
	got := diag.All(fmt.Errorf("reading: %w", context.Canceled))
	if len(got) != 1 || !errors.Is(got[0], context.Canceled) {
		t.Errorf("All(wrapped context.Canceled) = %v; errors.Is(_, context.Canceled) must hold", got)
	}
	if diff := cmp.Diff([]*diag.Error{{Msg: "plain", Err: plain}}, diag.All(plain)); diff != "" {
		t.Errorf("All(plain) mismatch (-want +got):\n%s", diff)
	}
}

// TestCmpWithoutOptions: problems and lists of them diff with go-cmp as
// values and as pointers, without options.
func TestCmpWithoutOptions(t *testing.T) {
	text := []byte("a = 1\n")
	a := diag.Error{Source: "f", Line: 1, Column: 5, Msg: "m", Err: errors.New("cause")}
	a.SetText(text, 4)
	b := a
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&a, &b); diff != "" {
		t.Errorf("pointers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(diag.Errors{&a}, diag.Errors{&b}); diff != "" {
		t.Errorf("lists (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&diag.Omitted{N: 2}, &diag.Omitted{N: 2}); diff != "" {
		t.Errorf("Omitted (-want +got):\n%s", diff)
	}
	var c diag.Collector
	c.AddError(&a)
	if diff := cmp.Diff(diag.Errors{&a}, c.Err()); diff != "" {
		t.Errorf("Collector.Err (-want +got):\n%s", diff)
	}
	b.Msg = "other"
	if cmp.Equal(a, b) || cmp.Equal(&a, &b) || cmp.Equal((*diag.Error)(nil), &a) {
		t.Error("different problems compare equal")
	}
}
