package doc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	yaml "go.yaml.in/yaml/v3"
)

// entry is one entry of an ordered tree, for comparisons that see the
// order of table entries and the kind of each scalar.
type entry struct {
	Key   string
	Value any
}

// ordered converts a tree to nested values that keep entry order and
// node kinds: tables become []entry, arrays []any, scalars their Go
// value, datetimes a tagged string, nulls nil.
func ordered(n *Node) any {
	switch n.Kind {
	case Table:
		out := make([]entry, 0, len(n.Entries))
		for _, e := range n.Entries {
			out = append(out, entry{e.Key, ordered(e)})
		}
		return out
	case Array:
		out := make([]any, 0, len(n.Entries))
		for _, e := range n.Entries {
			out = append(out, ordered(e))
		}
		return out
	case String:
		return n.Str
	case Integer:
		return n.Int()
	case Float:
		return n.Float()
	case Bool:
		return n.Bool
	case Datetime:
		return "<datetime " + n.Str + ">"
	case Null:
		return nil
	}
	return "<invalid>"
}

// contains reports whether the tree holds a node for which bad is true.
func contains(n *Node, bad func(*Node) bool) bool {
	if bad(n) {
		return true
	}
	for _, e := range n.Entries {
		if contains(e, bad) {
			return true
		}
	}
	return false
}

// checkTree checks what every accepted document's tree must be: a table
// root whose entries have unique keys, and arrays without keys.
func checkTree(t *testing.T, n *Node, root bool) {
	t.Helper()
	if n.Kind == Invalid || n.Kind > Null {
		t.Fatalf("node of invalid kind %d", n.Kind)
	}
	if n.Kind != Table && n.Kind != Array && len(n.Entries) > 0 {
		t.Fatalf("%s node with entries", n.Kind)
	}
	seen := map[string]bool{}
	for _, e := range n.Entries {
		if n.Kind == Table {
			if seen[e.Key] {
				t.Fatalf("key %q twice in one table", e.Key)
			}
			seen[e.Key] = true
			if n.Get(e.Key) != e {
				t.Fatalf("Get(%q) does not find its entry", e.Key)
			}
		} else if e.Key != "" || e.KeyOff != -1 {
			t.Fatalf("array element with key %q at %d", e.Key, e.KeyOff)
		}
		checkTree(t, e, false)
	}
	if root && n.Kind != Table {
		t.Fatalf("root is a %s", n.Kind)
	}
}

// checkOffsets checks that every offset of the tree is -1 or inside data,
// and that, when want is true, every node below the root has one.
func checkOffsets(t *testing.T, n *Node, data []byte, root, want bool) {
	t.Helper()
	for _, off := range []int32{n.Off, n.KeyOff} {
		if off < -1 || off > int32(len(data)) {
			t.Fatalf("node %q (%s) has offset %d outside the input (%d bytes)", n.Key, n.Kind, off, len(data))
		}
	}
	if want && !root && n.Off < 0 {
		t.Fatalf("node %q (%s) has no value position", n.Key, n.Kind)
	}
	for _, e := range n.Entries {
		checkOffsets(t, e, data, false, want)
	}
}

// checkJSONPositions checks that each node's offsets point at its token
// in JSON text data: a key at its opening quote, a value at its first
// character.
func checkJSONPositions(t *testing.T, n *Node, data []byte) {
	t.Helper()
	at := func(off int32) byte {
		if off < 0 || int(off) >= len(data) {
			t.Fatalf("node %q (%s): offset %d outside the input", n.Key, n.Kind, off)
		}
		return data[off]
	}
	var ok bool
	switch c := at(n.Off); n.Kind {
	case Table:
		ok = c == '{'
	case Array:
		ok = c == '['
	case String:
		ok = c == '"'
	case Integer, Float:
		ok = c == '-' || c >= '0' && c <= '9'
	case Bool:
		ok = c == 't' || c == 'f'
	case Null:
		ok = c == 'n'
	}
	if !ok {
		t.Fatalf("%s node %q: offset %d points at %q", n.Kind, n.Key, n.Off, data[n.Off:min(len(data), int(n.Off)+10)])
	}
	for _, e := range n.Entries {
		if n.Kind == Table && at(e.KeyOff) != '"' {
			t.Fatalf("key %q: offset %d points at %q", e.Key, e.KeyOff, data[e.KeyOff:min(len(data), int(e.KeyOff)+10)])
		}
		checkJSONPositions(t, e, data)
	}
}

// jsonScan walks JSON text with encoding/json's tokenizer and reports
// whether an object defines a key twice and whether a number does not fit
// our types: an integer (no fraction, no exponent) outside int64, or a
// float outside float64's range.
func jsonScan(data []byte) (dup, outOfRange bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var value func() error
	value = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' {
				keys := map[string]bool{}
				for dec.More() {
					k, err := dec.Token()
					if err != nil {
						return err
					}
					if keys[k.(string)] {
						dup = true
					}
					keys[k.(string)] = true
					if err := value(); err != nil {
						return err
					}
				}
			} else {
				for dec.More() {
					if err := value(); err != nil {
						return err
					}
				}
			}
			_, err := dec.Token()
			return err
		case json.Number:
			if strings.ContainsAny(string(tok), ".eE") {
				if _, err := strconv.ParseFloat(string(tok), 64); err != nil {
					outOfRange = true
				}
			} else if _, err := strconv.ParseInt(string(tok), 10, 64); err != nil {
				outOfRange = true
			}
		}
		return nil
	}
	return dup, outOfRange, value()
}

// fromEncodingJSON converts what encoding/json decodes (with UseNumber)
// to the values plain gives for our tree.
func fromEncodingJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = fromEncodingJSON(e)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = fromEncodingJSON(e)
		}
		return v
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			f, _ := strconv.ParseFloat(string(v), 64)
			return f
		}
		i, _ := strconv.ParseInt(string(v), 10, 64)
		return i
	}
	return v
}

// checkWriters checks that an accepted tree written as JSON, and as TOML
// when it can be, reads back as the same tree.
func checkWriters(t *testing.T, root *Node) {
	t.Helper()
	finite := !contains(root, func(n *Node) bool {
		return n.Kind == Float && (math.IsNaN(n.Float()) || math.IsInf(n.Float(), 0)) || n.Kind == Datetime
	})
	if finite {
		out, err := WriteJSON(root)
		if err != nil {
			t.Fatalf("WriteJSON: %v", err)
		}
		d, errs := ReadJSON(out)
		if len(errs) > 0 {
			t.Fatalf("written JSON does not read back: %v\n%s", errs, out)
		}
		if diff := deepDiff(ordered(root), ordered(d.Root)); diff != "" {
			t.Fatalf("JSON round trip differs (-read +reread):\n%s\nwritten:\n%s", diff, out)
		}
	} else if _, err := WriteJSON(root); err == nil && contains(root, func(n *Node) bool { return n.Kind == Float && (math.IsNaN(n.Float()) || math.IsInf(n.Float(), 0)) }) {
		t.Fatal("WriteJSON wrote a NaN or an infinity")
	}
	if contains(root, func(n *Node) bool { return n.Kind == Null || n.Kind == Datetime }) {
		if _, err := WriteTOML(root); err == nil && contains(root, func(n *Node) bool { return n.Kind == Null }) {
			t.Fatal("WriteTOML wrote a null")
		}
		return
	}
	out, err := WriteTOML(root)
	if err != nil {
		t.Fatalf("WriteTOML: %v", err)
	}
	d, errs := ReadTOML(out)
	if len(errs) > 0 {
		t.Fatalf("written TOML does not read back: %v\n%s", errs, out)
	}
	// The TOML writer puts [sections] after a table's values, so entry
	// order is not kept; compare without it.
	if diff := deepDiff(plain(root), plain(d.Root), cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("TOML round trip differs (-read +reread):\n%s\nwritten:\n%s", diff, out)
	}
}

func FuzzReadJSON(f *testing.F) {
	for _, s := range []string{
		`{}`,
		` { "a" : 1 , "b" : [ 1 , 2.5 , "s" , true , null , { } , [ ] ] } `,
		`{"tools": {"*": {"run": "ask"}, "grep": {"command": "rg", "options": {"n": -0.0, "e": 1e3, "E": 1E-3}}}}`,
		`{"a": 1, "a": 2}`,
		`{"a": {"b": 1, "b": {"c": 1, "c": 2}}}`,
		`{"a": 9223372036854775807, "b": -9223372036854775808}`,
		`{"a": 9223372036854775808}`,
		`{"a": 1e400}`,
		`{"a": 1e-400, "b": 0.1e1, "c": -0}`,
		`{"\u00e9\ud83d\ude00": "\u0000\"\\\/\b\f\n\r\t", "": ""}`,
		"{\"bad utf8\": \"\xff\xfe\"}",
		`{"<html>&": "<>&\u2028"}`,
		`[1, 2]`,
		`"str"`,
		`null`,
		`1`,
		`{} {}`,
		`{} x`,
		`{},`,
		"{} ,\n",
		`{"a": [1,], "b": 2}`,
		`{"a": }`,
		`{"a": 1,}`,
		`{"a" 1}`,
		`{'a': 1}`,
		`{"a": [1, 2`,
		`{"a": 01}`,
		`{"a": NaN}`,
		"\ufeff{}",
		"",
		"  \n\t",
		`{"a":{"b":{"c":{"d":[[[[{"e":null}]]]]}}}}`,
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k1":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, errs := fuzzOptions.ReadJSON(data)
		for _, e := range errs {
			if e == nil || e.Msg == "" && e.More == 0 {
				t.Fatalf("empty error in %v", errs)
			}
			if e.Off < -1 || e.Off > int32(len(data)) {
				t.Fatalf("error offset %d outside the input (%d bytes): %v", e.Off, len(data), e)
			}
		}
		if len(errs) == 0 && d.Root == nil {
			t.Fatal("no errors and no tree")
		}
		// A byte order mark is skipped, which encoding/json does not do.
		data = bytes.TrimPrefix(data, utf8BOM)

		valid := json.Valid(data)
		var ref any
		var dup, outOfRange bool
		if valid {
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.UseNumber()
			if err := dec.Decode(&ref); err != nil {
				t.Fatalf("json.Valid accepts, Decode fails: %v", err)
			}
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				t.Fatalf("json.Valid accepts trailing data: %v", err)
			}
			var err error
			dup, outOfRange, err = jsonScan(data)
			if err != nil {
				t.Fatalf("json.Valid accepts, the tokenizer fails: %v", err)
			}
		}
		_, object := ref.(map[string]any)

		if len(errs) == 0 {
			// Ours accepts: encoding/json accepts too, sees an object
			// without duplicate keys or out-of-range numbers, and the
			// same values.
			if !valid {
				t.Fatalf("ReadJSON accepts what encoding/json rejects:\n%q", data)
			}
			if !object || dup || outOfRange {
				t.Fatalf("ReadJSON accepts a document it must reject (object %v, duplicate keys %v, out-of-range number %v):\n%q", object, dup, outOfRange, data)
			}
			checkTree(t, d.Root, true)
			checkOffsets(t, d.Root, data, true, true)
			checkJSONPositions(t, d.Root, data)
			if depth := nesting(d.Root); depth > fuzzOptions.MaxDepth {
				t.Fatalf("ReadJSON accepts a document %d levels deep, over the limit of %d", depth, fuzzOptions.MaxDepth)
			}
			if diff := deepDiff(fromEncodingJSON(ref), plain(d.Root)); diff != "" {
				t.Fatalf("tree differs from encoding/json (-encoding/json +ours):\n%s\ninput:\n%q", diff, data)
			}
			checkWriters(t, d.Root)
			return
		}
		if !valid {
			return // both reject
		}
		// encoding/json accepts what ours rejects. Our rules are stricter
		// in five ways, and every error must be one of them, with the
		// document actually breaking that rule.
		for _, e := range errs {
			switch {
			case e.More > 0:
				if len(errs) != fuzzOptions.MaxErrors+1 || e != errs[len(errs)-1] {
					t.Fatalf("%d problems left out after %d kept, want them counted after %d", e.More, len(errs)-1, fuzzOptions.MaxErrors)
				}
				continue
			case strings.Contains(e.Msg, "invalid UTF-8"):
				if utf8.Valid(data) {
					t.Fatalf("invalid UTF-8 reported in valid UTF-8: %v\n%q", e, data)
				}
				if n := invalidUTF8(data); int32(n) != e.Off {
					t.Fatalf("invalid UTF-8 reported at %d, the first invalid byte is at %d", e.Off, n)
				}
			case strings.Contains(e.Msg, "nest deeper than"):
				var ref any
				if err := json.Unmarshal(data, &ref); err != nil || jsonNesting(ref) <= fuzzOptions.MaxDepth {
					t.Fatalf("nesting reported in a document %d levels deep (limit %d): %v", jsonNesting(ref), fuzzOptions.MaxDepth, e)
				}
			case strings.Contains(e.Msg, "is defined twice in the same object"):
				if !dup {
					t.Fatalf("duplicate key reported, but there is none: %v\n%q", e, data)
				}
			case strings.Contains(e.Msg, "does not fit in 64 bits"), strings.Contains(e.Msg, "is out of range"):
				if !outOfRange {
					t.Fatalf("out-of-range number reported, but there is none: %v\n%q", e, data)
				}
			case strings.Contains(e.Msg, "must be an object at the top level"):
				if object {
					t.Fatalf("non-object reported for an object: %v\n%q", e, data)
				}
			default:
				t.Fatalf("ReadJSON rejects valid JSON: %v\n%q", e, data)
			}
			if e.Off < 0 {
				t.Fatalf("error without position: %v", e)
			}
		}
	})
}

func FuzzReadYAML(f *testing.F) {
	for _, s := range []string{
		"",
		"---\n",
		"~\n",
		"a: 1\nb: x\nc: [1, 2.5, \"s\", true, null]\nd: {e: f}\n",
		"tools:\n  '*':\n    run: ask\n  grep:\n    command: rg -n\n    enable: off\n",
		"a: &x {b: 1}\nc: *x\nd: [*x, *x]\n",
		"a: &x [1]\nb: &y [*x, *x]\nc: [*y, *y]\n",
		"a: 1\na: 2\n",
		"? [1, 2]\n: x\n",
		"<<: {a: 1}\n",
		"1: a\ntrue: b\n~: c\n1.5: d\n",
		"a: 0x1F\nb: 0o17\nc: -9223372036854775808\nd: 9223372036854775808\n",
		"a: .inf\nb: -.Inf\nc: .NaN\nd: 1e400\ne: -0.0\nf: 1_000\n",
		"a: 2001-12-14t21:59:43.10-05:00\nb: 2002-12-14\nc: !!timestamp 2001-12-14 21:59:43.10 -5\n",
		"a: !!binary aGVsbG8=\n",
		"a: !custom x\n",
		"a: !!str 1\nb: !!int \"2\"\nc: !!float 3\n",
		"a: |\n  multi\n  line\nb: >\n  folded\n  text\n",
		"a: 'it''s'\nb: \"\\u00e9\\t\"\nc: héllo\n",
		"- a\n- b\n",
		"plain",
		"a: [\n",
		"a:\n\tb: 1\n",
		"a: b: c\n",
		"--- {a: 1}\n--- {b: 2}\n",
		"%YAML 1.2\n---\na: 1\n",
		"a: yes\nb: on\nc: True\nd: FALSE\n",
		"\"\": empty\n",
		"a: {b: {c: {d: [[[{e: ~}]]]}}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, errs := fuzzOptions.ReadYAML(data)
		for _, e := range errs {
			if e == nil || e.Msg == "" && e.More == 0 {
				t.Fatalf("empty error in %v", errs)
			}
			if e.Off < 0 && e.More == 0 {
				t.Fatalf("error without position: %v\n%q", e, data)
			}
			if e.Off < -1 || e.Off > int32(len(data)) {
				t.Fatalf("error offset %d outside the input (%d bytes): %v", e.Off, len(data), e)
			}
			if line, _ := d.Position(e.Off); line > bytes.Count(data, []byte("\n"))+1 {
				t.Fatalf("error line %d outside the input: %v", line, e)
			}
		}
		if len(errs) > 0 {
			return
		}
		if d.Root == nil {
			t.Fatal("no errors and no tree")
		}
		checkTree(t, d.Root, true)
		checkOffsets(t, d.Root, d.Data, true, true)
		checkWriters(t, d.Root)
		if depth := nesting(d.Root); depth > fuzzOptions.MaxDepth {
			t.Fatalf("ReadYAML accepts a document %d levels deep, over the limit of %d", depth, fuzzOptions.MaxDepth)
		}
	})
}

// deepDiff is cmp.Diff(want, got, opts...) for trees that may nest deep:
// go-cmp takes time exponential in how deep slices nest, so trees that
// reflect.DeepEqual finds equal are equal without it.
func deepDiff(want, got any, opts ...cmp.Option) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, opts...)
}

// fuzzOptions are the limits the fuzz targets read with: low enough that
// the fuzzer reaches them.
var fuzzOptions = Options{MaxDepth: 20, MaxErrors: 5, MaxQuote: 10}

// nesting returns how deep a tree nests: the longest key path, array
// indexes included.
func nesting(n *Node) int {
	deepest := 0
	for _, e := range n.Entries {
		deepest = max(deepest, 1+nesting(e))
	}
	return deepest
}

// jsonNesting is nesting for a value decoded by encoding/json.
func jsonNesting(v any) int {
	deepest := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			deepest = max(deepest, 1+jsonNesting(e))
		}
	case []any:
		for _, e := range v {
			deepest = max(deepest, 1+jsonNesting(e))
		}
	}
	return deepest
}

// aliasBomb returns a YAML document of levels anchors, each a list of ten
// aliases of the one before: it expands to 10^levels values.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	return b.String()
}

func TestReadYAMLAliasExpansion(t *testing.T) {
	// A few aliases expand as written.
	d, errs := ReadYAML([]byte(aliasBomb(3)))
	if len(errs) > 0 {
		t.Fatalf("small expansion refused: %v", errs)
	}
	if got := len(d.Root.Get("a2").Entries[9].Entries); got != 10 {
		t.Fatalf("a2[9] has %d entries, want 10", got)
	}
	// Nested aliases that would make a billion values are refused, with a
	// position, instead of exhausting memory: reading allocates a few
	// megabytes, where expanding would take gigabytes. (No test of this
	// package runs in parallel, so the allocations counted are the read's.)
	src := aliasBomb(9)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, errs = ReadYAML([]byte(src))
	runtime.ReadMemStats(&after)
	if len(errs) != 1 || !strings.Contains(errs[0].Msg, "aliases expand to too many values") {
		t.Fatalf("got %v, want one alias expansion error", errs)
	}
	if errs[0].Off < 0 || errs[0].Off > int32(len(src)) {
		t.Fatalf("error offset %d outside the input", errs[0].Off)
	}
	const maxAlloc = 64 << 20
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > maxAlloc {
		t.Fatalf("reading allocated %d bytes, want at most %d: the aliases were expanded", alloc, maxAlloc)
	}
}

func TestReadYAMLPositions(t *testing.T) {
	// Every line break the YAML parser knows: offsets must still point at
	// the values.
	for _, src := range []string{
		"a: [x,\n y]\n",
		"a: [x,\r\n y]\r\n",
		"a: [x,\r y]\r",
		"a: [x,\u0085 y]",
		"a: [x,\u2028 y]",
		"a: [x,\u2029 y]",
		"\ufeffa: [x,\n y]\n",
		"a: [é,\r ü]\r",
	} {
		d, errs := ReadYAML([]byte(src))
		if len(errs) > 0 {
			t.Fatalf("%q: %v", src, errs)
		}
		// Offsets are into the document without its byte order mark.
		data := string(d.Data)
		a := d.Root.Get("a")
		if got := data[a.KeyOff:]; !strings.HasPrefix(got, "a:") {
			t.Errorf("%q: key a at %d points at %q", src, a.KeyOff, got)
		}
		for _, e := range a.Entries {
			if got := data[e.Off:]; !strings.HasPrefix(got, e.Str) {
				t.Errorf("%q: value %q at %d points at %q", src, e.Str, e.Off, got)
			}
		}
	}
	// Syntax errors give the line as the parser counts it: line 3 here.
	src := "a: [x,\r y\r\r"
	_, errs := ReadYAML([]byte(src))
	if len(errs) != 1 || errs[0].Off != 10 {
		t.Fatalf("%q: got %v, want one error at offset 10", src, errs)
	}
}

func TestPositionInsideCharacter(t *testing.T) {
	d := &Doc{Data: []byte("\"韟\n\xe9\x9f")}
	for off, col := range []int{1, 2, 2, 2, 3} {
		if line, c := d.Position(int32(off)); line != 1 || c != col {
			t.Errorf("Position(%d) = %d:%d, want 1:%d", off, line, c, col)
		}
	}
	// A truncated character at the end counts its bytes.
	if line, c := d.Position(7); line != 2 || c != 3 {
		t.Errorf("Position(7) = %d:%d, want 2:3", line, c)
	}
}

// FuzzPlainInt holds plainInt, the YAML reader's fast path for integers,
// to yaml.v3: what it reads, yaml.v3 reads as the same integer.
func FuzzPlainInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "1", "-1", "42", "0123", "+1", "1_000", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "0x1F", "0o17", "1e3", "", "-", "١٢"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		i, ok := plainInt(s)
		if !ok {
			return
		}
		var y yaml.Node
		if err := yaml.Unmarshal([]byte("a: "+s), &y); err != nil {
			t.Fatalf("plainInt reads %q, which yaml.v3 does not parse: %v", s, err)
		}
		v := y.Content[0].Content[1]
		var want int64
		if v.ShortTag() != "!!int" || v.Decode(&want) != nil || want != i {
			t.Fatalf("plainInt reads %q as %d; yaml.v3 reads it as %s %q", s, i, v.ShortTag(), v.Value)
		}
	})
}
