package doc

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp/cmpopts"
	toml "github.com/pelletier/go-toml/v2"
)

// plain converts a tree to the values go-toml produces for map[string]any,
// with datetimes reduced to a marker.
func plain(n *Node) any {
	switch n.Kind {
	case Table:
		m := make(map[string]any, len(n.Entries))
		for _, e := range n.Entries {
			m[e.Key] = plain(e)
		}
		return m
	case Array:
		a := make([]any, 0, len(n.Entries))
		for _, e := range n.Entries {
			a = append(a, plain(e))
		}
		return a
	case String:
		return n.Str
	case Integer:
		return n.Int()
	case Float:
		return n.Float()
	case Bool:
		return n.Bool
	case Datetime:
		return "<datetime>"
	}
	return nil
}

func normalizeGoTOML(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalizeGoTOML(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = normalizeGoTOML(e)
		}
		return v
	case []map[string]any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = normalizeGoTOML(e)
		}
		return a
	case time.Time, toml.LocalDate, toml.LocalTime, toml.LocalDateTime:
		return "<datetime>"
	}
	return v
}

var tomlSeeds = []string{
	"",
	"a = 1\nb = 'x'\nc = [1, 2.5, \"s\"]\nd = { e = true, f.g = 1 }\n",
	"[a.b.c]\nx = 1\n[a]\ny = 2\n",
	"[a]\n[a]\n",
	"[a]\nb.c = 1\n[a.b]\n",
	"a.b = 1\n[a]\n",
	"[fruit]\napple.color = 'red'\n[fruit.apple.texture]\nsmooth = true\n",
	"[product]\ntype = { name = 'Nail' }\ntype.edible = false\n",
	"[[a]]\nx = 1\n[[a]]\nx = 2\n[a.b]\ny = 3\n",
	"a = [1]\n[[a]]\n",
	"a = 1\na = 2\n",
	"a = 0x7FFFFFFFFFFFFFFF\nb = -9223372036854775808\nc = 0o755\nd = 0b1010\ne = 1_000\n",
	"a = 9223372036854775808\n",
	"f = inf\ng = -inf\nh = nan\ni = 6.626e-34\nj = 1_000.5\n",
	"d = 1979-05-27T07:32:00Z\ne = 1979-05-27\nf = 07:32:00\ng = 1979-05-27T00:32:00.999999\n",
	"d = 1979-13-27\n",
	"'quoted.key' = 1\n\"\\u00e9\" = 2\n",
	"[t]\na = { b = 1 }\n[t.a.c]\n",
	"x = [{a = 1}, {b = 2}]\n",
	"[a.b]\n[a.b.c]\n[a.b]\n",
	"a = { b = 1, b = 2 }\n",
	"[[t.x]]\n[t]\n[t.x.y]\nz=1\n",
	"a = \"\"\"\nmulti\nline\"\"\"\n",
}

func FuzzReadTOML(f *testing.F) {
	for _, s := range tomlSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, errs := fuzzOptions.ReadTOML(data)
		var want map[string]any
		// A byte order mark is skipped, which go-toml does not do.
		gerr := toml.Unmarshal(bytes.TrimPrefix(data, utf8BOM), &want)
		tooDeep := gerr == nil && len(errs) > 0
		for _, e := range errs {
			if e.Off > int32(len(data)) {
				t.Fatalf("error offset %d past the input (%d bytes): %v", e.Off, len(data), e)
			}
			if e.More == 0 && !strings.Contains(e.Msg, "nest deeper than") {
				tooDeep = false
			}
		}
		if tooDeep {
			// Ours rejects, within the limits, what go-toml accepts: the
			// document must nest deeper than the limit.
			if depth := jsonNesting(normalizeGoTOML(want)); depth <= fuzzOptions.MaxDepth {
				t.Fatalf("nesting reported in a document %d levels deep (limit %d): %v\n%s", depth, fuzzOptions.MaxDepth, errs, data)
			}
			return
		}
		if (len(errs) == 0) != (gerr == nil) {
			t.Fatalf("ReadTOML errors %v, go-toml error %v, on:\n%s", errs, gerr, data)
		}
		if gerr != nil {
			return
		}
		if depth := nesting(d.Root); depth > fuzzOptions.MaxDepth {
			t.Fatalf("ReadTOML accepts a document %d levels deep, over the limit of %d:\n%s", depth, fuzzOptions.MaxDepth, data)
		}
		if want == nil {
			want = map[string]any{}
		}
		if diff := deepDiff(normalizeGoTOML(want), plain(d.Root), cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("tree differs from go-toml (-go-toml +ours):\n%s\ninput:\n%s", diff, data)
		}
		// What the writer renders reads back as the same tree.
		out, err := WriteTOML(d.Root)
		if err != nil {
			return // datetimes and the like are written as read; other failures are checked below
		}
		d2, errs2 := ReadTOML(out)
		if len(errs2) > 0 {
			t.Fatalf("written TOML does not read back: %v\n%s", errs2, out)
		}
		if diff := deepDiff(plain(d.Root), plain(d2.Root), cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("round trip differs (-read +reread):\n%s\nwritten:\n%s", diff, out)
		}
	})
}

func TestReadTOMLPositions(t *testing.T) {
	src := "# header\n[tools.grep]\nrun = \"ask\"\nsummary = \"héllo\"\n"
	d, errs := ReadTOML([]byte(src))
	if errs != nil {
		t.Fatal(errs)
	}
	grep := d.Root.Get("tools").Get("grep")
	tests := []struct {
		name      string
		off       int32
		line, col int
	}{
		{"table header key", grep.KeyOff, 2, 8},
		{"key", grep.Get("run").KeyOff, 3, 1},
		{"value", grep.Get("run").Off, 3, 7},
		{"value after multibyte", grep.Get("summary").Off, 4, 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line, col := d.Position(tt.off)
			if line != tt.line || col != tt.col {
				t.Errorf("Position = %d:%d, want %d:%d", line, col, tt.line, tt.col)
			}
		})
	}
	if got := d.Line(3); got != `run = "ask"` {
		t.Errorf("Line(3) = %q", got)
	}
}

func TestReadTOMLErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // substrings of each error, in order
	}{
		{"duplicate key", "a = 1\na = 2\n", []string{"a is defined twice (first at line 1, column 1)"}},
		{"table twice", "[a]\n[a]\n", []string{"table [a] is defined twice"}},
		{"dotted then header", "[a]\nb.c = 1\n[a.b]\n", []string{"table [a.b] was already defined by dotted keys"}},
		{"all problems collected", "a = 1\na = 2\nb = 1\nb = 3\n", []string{"a is defined twice", "b is defined twice"}},
		{"syntax", "a = \n", []string{"TOML syntax"}},
		{"inline immutable", "[p]\nt = { n = 1 }\nt.e = 2\n", []string{"p.t is already defined"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := ReadTOML([]byte(tt.src))
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors %v, want %d", len(errs), errs, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(errs[i].Msg, w) {
					t.Errorf("error %d = %q, want it to contain %q", i, errs[i].Msg, w)
				}
			}
		})
	}
}

func TestTOMLFloatFormat(t *testing.T) {
	for _, f := range []float64{1, -0.5, 1e21, 1e-7, math.MaxFloat64, math.Inf(1)} {
		s := tomlFloat(f)
		d, errs := ReadTOML([]byte("x = " + s))
		if errs != nil {
			t.Fatalf("%v -> %q: %v", f, s, errs)
		}
		if got := d.Root.Get("x"); got.Kind != Float || got.Float() != f {
			t.Errorf("%v -> %q -> %v (%s)", f, s, got.Float(), got.Kind)
		}
	}
}
