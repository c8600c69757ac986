package jsonv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/limits"
)

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,null,"x\u00e9",1.50e3],"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`[]`, `{}`, `"x"`, `12345678901234567890`, `{"a":{"b":{"c":[1,{"d":-0.0}]}}}`, ` { "a" : 1 } `,
		`{"a":1},`, `[1] ,`, `{"a":1,"a":2}`, "{\"\xff\":\"\xfe\"}", `{"\ud800":"\udc00x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		v, err := Parse(in)
		want := json.Valid(b) && decoderAccepts(b)
		if (err == nil) != want {
			t.Fatalf("Parse(%q): error %v, want success %v (json.Valid %v)", b, err, want, json.Valid(b))
		}
		// Compact accepts what Parse accepts, refuses with Parse's
		// problem, and gives the text Parse's value writes.
		if c, cerr := Compact(b); fmt.Sprint(cerr) != fmt.Sprint(err) {
			t.Fatalf("Compact(%q): error %v, Parse's %v", b, cerr, err)
		} else if err == nil && !bytes.Equal(c, v.JSON()) {
			t.Fatalf("Compact(%q) = %s, Parse's value writes %s", b, c, v.JSON())
		}
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "offset ") || strings.Contains(msg, "\n") {
				t.Fatalf("Parse(%q): error %q, want one line starting with the offset", b, msg)
			}
			return
		}
		clear(in) // the Value must not depend on the caller's buffer

		// The Value is the one the parser driven by encoding/json's
		// Decoder built.
		old, err := parseViaDecoder(b)
		if err != nil {
			t.Fatalf("the Decoder parser refused %q: %v", b, err)
		}
		if d := diffValues(v, old, "$"); d != "" {
			t.Fatalf("Parse(%q) differs from the Decoder parser: %s", b, d)
		}

		// v.JSON() is the input without its whitespace, and means what it
		// meant.
		var want2 bytes.Buffer
		if err := json.Compact(&want2, b); err != nil {
			t.Fatal(err)
		}
		got := v.JSON()
		if !bytes.Equal(got, want2.Bytes()) {
			t.Fatalf("round trip changed the value:\n got %s\nwant %s", got, want2.Bytes())
		}
		if bytes.Equal(want2.Bytes(), b) && !bytes.Equal(got, b) {
			t.Fatalf("round trip changed compact JSON:\n got %s\nwant %s", got, b)
		}
		if x, y := decodeNumbers(t, got), decodeNumbers(t, b); !reflect.DeepEqual(x, y) {
			t.Fatalf("round trip changed the meaning:\n got %#v\nwant %#v", x, y)
		}
		if !Equal(v, v.Clone()) {
			t.Fatal("a clone differs")
		}
	})
}

// FuzzKey fuzzes the text of a key: escapes, surrogates, invalid UTF-8.
func FuzzKey(f *testing.F) {
	for _, s := range []string{
		`a`, ``, `\u0061`, `\ud83d\ude00`, `\ud800`, `\udc00\ud800`, `\ud800\ud800\udc00`, `\ud800\u0041`,
		"\xff\xfe", "caf\xc3\xa9", "\xed\xa0\x80", "line\u2028sep\u2029", "\xef\xbf\xbd", `\"\\\/\b\f\n\r\t`, "\x7f", `\u00`, `\x`, "\x01",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc := []byte(`{"` + s + `":0}`)
		v, err := Parse(doc)
		if want := json.Valid(doc) && decoderAccepts(doc); (err == nil) != want {
			t.Fatalf("Parse(%q): error %v, want success %v (json.Valid %v)", doc, err, want, json.Valid(doc))
		}
		if err != nil || !json.Valid([]byte(`"`+s+`"`)) {
			return // invalid, or s ends the key and goes on (s = `":0,"`)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(doc, &m); err != nil {
			t.Fatal(err)
		}
		if len(m) != 1 || len(v.Keys()) != 1 {
			t.Fatalf("Parse(%q): keys %q, json.Unmarshal %v", doc, v.Keys(), m)
		}
		if _, ok := m[v.Keys()[0]]; !ok {
			t.Fatalf("Parse(%q): key %q, json.Unmarshal has %v", doc, v.Keys()[0], m)
		}
		if got, want := v.String(), `{"`+s+`":0}`; got != want {
			t.Fatalf("written as %q, want %q", got, want)
		}
		if text := v.keyText(0); (text == "") != plainKey(s) {
			t.Fatalf("key text %q kept, for a key that is plain: %v", text, plainKey(s))
		}
		// The same text as a string value.
		a := MustParse(`["` + s + `"]`)
		var want string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &want); err != nil {
			t.Fatal(err)
		}
		if got, _ := a.Items()[0].Str(); got != want || got != v.Keys()[0] {
			t.Fatalf("Str %q, key %q, want %q", got, v.Keys()[0], want)
		}
	})
}

// decoderAccepts reports whether valid JSON b has no key twice in an
// object and no value deeper than limits.Depth, deciding it with
// encoding/json's Decoder.
func decoderAccepts(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type frame struct {
		object  bool
		wantKey bool
		keys    map[string]bool
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].wantKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			panic(fmt.Sprintf("Token on valid JSON %q: %v", b, err))
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			valueDone()
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			k := tok.(string)
			if stack[n-1].keys[k] {
				return false
			}
			stack[n-1].keys[k] = true
			stack[n-1].wantKey = false
			continue
		}
		if len(stack) > limits.Depth {
			return false
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, wantKey: true, keys: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, &frame{})
		default:
			valueDone()
		}
	}
}

// diffValues describes how a and b differ, down to the text they keep.
func diffValues(a, b *Value, path string) string {
	switch {
	case a.kind != b.kind:
		return fmt.Sprintf("%s: kind %d, want %d", path, a.kind, b.kind)
	case a.raw != b.raw:
		return fmt.Sprintf("%s: text %q, want %q", path, a.raw, b.raw)
	case len(a.keys) != len(b.keys) || (a.texts == nil) != (b.texts == nil) || len(a.items) != len(b.items):
		return fmt.Sprintf("%s: %d keys, key texts %v, %d items; want %d, %v, %d", path, len(a.keys), a.texts != nil, len(a.items), len(b.keys), b.texts != nil, len(b.items))
	}
	for i := range a.keys {
		if a.keys[i] != b.keys[i] || a.keyText(i) != b.keyText(i) {
			return fmt.Sprintf("%s: key %q (text %q), want %q (text %q)", path, a.keys[i], a.keyText(i), b.keys[i], b.keyText(i))
		}
	}
	for i := range a.items {
		p := fmt.Sprintf("%s[%d]", path, i)
		if a.kind == Object {
			p = fmt.Sprintf("%s.%q", path, a.keys[i])
		}
		if d := diffValues(a.items[i], b.items[i], p); d != "" {
			return d
		}
	}
	return ""
}

func decodeNumbers(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		t.Fatalf("decoding %q: %v", b, err)
	}
	return x
}

func TestEdit(t *testing.T) {
	v := MustParse(`{"type":"object","properties":{"b":{"type":"string","minLength":1},"a":{"type":"integer","maximum":1e3}},"required":["b"]}`)
	p := v.Get("properties").Get("a")
	p.Set("description", MustOf("A number."))
	v.Get("required").Append(MustOf("a"))
	v.Get("properties").Delete("b")
	want := `{"type":"object","properties":{"a":{"type":"integer","maximum":1e3,"description":"A number."}},"required":["b","a"]}`
	if got := v.String(); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if s, ok := v.Get("type").Str(); !ok || s != "object" {
		t.Errorf("Str = %q, %v", s, ok)
	}
}

// TestEditKeyTexts: keys read with escapes keep their text through edits
// of the object; keys set later are written escaped where JSON needs it.
func TestEditKeyTexts(t *testing.T) {
	v := MustParse(`{"\u0061":1,"b":2,"c\"d":3,"line ":4}`)
	v.Set("q\"<\n", MustOf(5))
	v.Set("plain", MustOf(6))
	v.Delete("b")
	c := v.Clone()
	c.Delete("a")
	want := `{"\u0061":1,"c\"d":3,"line ":4,"q\"<\n":5,"plain":6}`
	if got := v.String(); got != want {
		t.Errorf("edited\n got %s\nwant %s", got, want)
	}
	if got, want := c.String(), `{"c\"d":3,"line ":4,"q\"<\n":5,"plain":6}`; got != want {
		t.Errorf("the clone, edited\n got %s\nwant %s", got, want)
	}
	if diff := cmp.Diff([]string{"a", `c"d`, "line\u2028", "q\"<\n", "plain"}, v.Keys()); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"key order", `{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{"number text", `1.0`, `1`, true},
		{"exponent", `1e3`, `1000`, true},
		{"different", `{"a":1}`, `{"a":2}`, false},
		{"array order", `[1,2]`, `[2,1]`, false},
		{"types", `"1"`, `1`, false},
		{"escapes", `{"\u0061":"\u00e9\n"}`, `{"a":"é\n"}`, true},
		{"string", `"a"`, `"b"`, false},
		{"nested key order", `{"p":{"x":[{"a":1,"b":[true,null]}],"y":"s"},"q":0}`, `{"q":0.0,"p":{"y":"s","x":[{"b":[true,null],"a":1}]}}`, true},
		{"nested difference", `{"p":{"x":[{"a":1,"b":[true,null]}]}}`, `{"p":{"x":[{"b":[true,false],"a":1}]}}`, false},
		{"other keys, as many", `{"a":1,"b":2}`, `{"a":1,"c":2}`, false},
		{"other keys, reordered", `{"b":2,"a":1}`, `{"a":1,"c":2}`, false},
		{"a key more", `{"a":1}`, `{"a":1,"b":2}`, false},
		{"true and false", `true`, `false`, false},
		{"null and false", `null`, `false`, false},
		{"an item more", `[1]`, `[1,1]`, false},
		{"negative zero", `-0`, `0`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := MustParse(tt.a), MustParse(tt.b)
			if got := Equal(a, b); got != tt.want {
				t.Errorf("Equal(%s, %s) = %v", tt.a, tt.b, got)
			}
			if got := Equal(b, a); got != tt.want {
				t.Errorf("Equal(%s, %s) = %v", tt.b, tt.a, got)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	deep := func(n int, inner string) string {
		return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
	}
	tests := []struct{ in, want string }{
		{`{"a":1,"a":2}`, `offset 7: key "a" appears twice in an object`},
		{`{"a":1,"\u0061":2}`, `offset 7: key "a" appears twice in an object`},
		{"{\"\xff\":1,\"\xfe\":2}", "offset 7: key \"\ufffd\" appears twice in an object"},
		{`{`, `offset 1: unexpected end of input`},
		{`{,}`, `offset 1: invalid character ',' at start of value`},
		{`{1:2}`, `offset 1: object member name must be a string`},
		{`{"a":1,}`, `offset 6: invalid character ',' at start of value`},
		{`{"a" 1}`, `offset 5: invalid character '1' after object name (expecting ':')`},
		{`{"a"}`, `offset 4: invalid character '}' after object name (expecting ':')`},
		{`{"a":}`, `offset 5: invalid character '}' at start of value`},
		{`{"a":1 "b":2}`, `offset 7: invalid character '"' after object value (expecting ',' or '}')`},
		{`[1,]`, `offset 2: invalid character ',' at start of value`},
		{`[1 2]`, `offset 3: invalid character '2' after array element (expecting ',' or ']')`},
		{``, `offset 0: unexpected end of input`},
		{" \t\r\n", `offset 4: unexpected end of input`},
		{"\xef\xbb\xbf{}", `offset 0: invalid character '\ufeff' at start of value`},
		{"\xff", `offset 0: invalid character '\xff' at start of value`},
		{`1 2`, `offset 2: unexpected data after the JSON value`},
		{`{"a":1}x`, `offset 7: unexpected data after the JSON value`},
		{`{"a":1},`, `offset 7: unexpected data after the JSON value`},
		{`01`, `offset 1: unexpected data after the JSON value`},
		{`-`, `offset 1: unexpected end of input`},
		{`-a`, `offset 1: invalid character 'a' in number (expecting digit)`},
		{`1.`, `offset 2: unexpected end of input`},
		{`1.e3`, `offset 2: invalid character 'e' in number (expecting digit)`},
		{`1e`, `offset 2: unexpected end of input`},
		{`1e+`, `offset 3: unexpected end of input`},
		{`.5`, `offset 0: invalid character '.' at start of value`},
		{`+1`, `offset 0: invalid character '+' at start of value`},
		{`NaN`, `offset 0: invalid character 'N' at start of value`},
		{`tru`, `offset 3: unexpected end of input`},
		{`[nul1]`, `offset 4: invalid character '1' in literal null (expecting 'l')`},
		{`falsy`, `offset 4: invalid character 'y' in literal false (expecting 'e')`},
		{`True`, `offset 0: invalid character 'T' at start of value`},
		{`"abc`, `offset 4: unexpected end of input`},
		{`["abc\`, `offset 6: unexpected end of input`},
		{"\"a\x01\"", `offset 2: invalid character '\x01' in string (expecting non-control character)`},
		{"\"a\nb\"", `offset 2: invalid character '\n' in string (expecting non-control character)`},
		{`"\q"`, "offset 1: invalid escape sequence `\\q` in string"},
		{`"\'"`, "offset 1: invalid escape sequence `\\'` in string"},
		{`"\u12g4"`, "offset 1: invalid escape sequence `\\u12g4` in string"},
		{`"\u12`, `offset 5: unexpected end of input`},
		{deep(1002, ``), `offset 1001: JSON nests deeper than 1,000 levels, the limit`},
		{deep(1001, `1`), `offset 1001: JSON nests deeper than 1,000 levels, the limit`},
		{`{"a":` + deep(1001, ``) + `}`, `offset 1005: JSON nests deeper than 1,000 levels, the limit`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		if err == nil {
			t.Errorf("Parse(%.40q) succeeded, want %s", tt.in, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("Parse(%.40q):\n got %s\nwant %s", tt.in, err, tt.want)
		}
		if json.Valid([]byte(tt.in)) && !strings.Contains(tt.want, "twice") && !strings.Contains(tt.want, "deeper") {
			t.Errorf("%.40q is valid JSON", tt.in)
		}
	}
}

func TestDepth(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
		strings.Repeat("[", 1000) + "1" + strings.Repeat("]", 1000),
		strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000),
		`{"a":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
	} {
		v, err := Parse([]byte(s))
		if err != nil {
			t.Fatalf("Parse(%.20s...): %v", s, err)
		}
		if got := v.String(); got != s {
			t.Errorf("round trip changed %.20s...", s)
		}
	}
}

// TestKeys checks keys are decoded as json.Unmarshal decodes them, and
// keep their text.
func TestKeys(t *testing.T) {
	src := "{\"plain\":1,\"caf\xc3\xa9\":2,\"\\u0041\\n\":3,\"\\ud83d\\ude00\":4,\"\\ud800x\":5,\"\xff\xfe\":6,\"\\udc00\\ud800\\udc01\":7,\"\":8,\"\xed\xa0\x80\":9}"
	v, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"plain", "café", "A\n", "😀", "\ufffdx", "\ufffd\ufffd", "\ufffd\U00010001", "", "\ufffd\ufffd\ufffd"}
	if !reflect.DeepEqual(v.Keys(), want) {
		t.Errorf("keys %q, want %q", v.Keys(), want)
	}
	var m map[string]int
	if err := json.Unmarshal([]byte(src), &m); err != nil {
		t.Fatal(err)
	}
	for i, k := range v.Keys() {
		if m[k] != i+1 {
			t.Errorf("json.Unmarshal has %q: %d, want %d", k, m[k], i+1)
		}
	}
	if got := v.String(); got != src {
		t.Errorf("round trip:\n got %q\nwant %q", got, src)
	}
}

// TestLargeObject checks the repeated key check past the map threshold.
func TestLargeObject(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 1000 {
		fmt.Fprintf(&b, `"k%d":%d,`, i, i)
	}
	ok := b.String()[:b.Len()-1] + "}"
	v, err := Parse([]byte(ok))
	if err != nil || len(v.Keys()) != 1000 || v.String() != ok {
		t.Fatalf("Parse: %v", err)
	}
	for _, dup := range []string{"k0", "k15", "k16", "k999"} {
		in := ok[:len(ok)-1] + `,"` + dup + `":0}`
		want := fmt.Sprintf("key %q appears twice in an object", dup)
		if _, err := Parse([]byte(in)); err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("a repeated %s: error %v", dup, err)
		}
	}
	for n := 1; n <= 40; n++ {
		in := "{"
		for i := range n {
			in += fmt.Sprintf(`"k%d":0,`, i)
		}
		in += fmt.Sprintf(`"k%d":0}`, n-1)
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%d keys then the last one again: no error", n)
		}
	}
}

// TestParseCopies checks a Value depends neither on the buffer it was
// parsed from nor, once edited, on the Values parsed with it.
func TestParseCopies(t *testing.T) {
	src := `{"a":{"x":1,"y":[1,2]},"b":{"z":"s"},"c":[{"d":true},[null]],"e":"text"}`
	buf := []byte(src)
	v, err := Parse(buf)
	if err != nil {
		t.Fatal(err)
	}
	for i := range buf {
		buf[i] = 'X'
	}
	if got := v.String(); got != src {
		t.Fatalf("changing the input changed the Value: %s", got)
	}

	var w Value
	if err := json.Unmarshal([]byte(`{"v":`+src+`}`), &struct{ V *Value }{&w}); err != nil {
		t.Fatal(err)
	}

	for _, v := range []*Value{v, &w} {
		c := v.Clone()
		v.Get("a").Set("new", MustOf(1))
		v.Get("a").Get("y").Append(MustOf(3))
		v.Get("b").Delete("z")
		v.Get("b").Set("w", MustOf(2))
		v.Get("c").Append(MustOf("x"))
		v.Get("c").Items()[0].Set("f", MustOf(false))
		v.Get("c").Items()[1].Append(MustOf(0))
		v.Set("f", NewObject())
		want := `{"a":{"x":1,"y":[1,2,3],"new":1},"b":{"w":2},"c":[{"d":true,"f":false},[null,0],"x"],"e":"text","f":{}}`
		if got := v.String(); got != want {
			t.Errorf("edited:\n got %s\nwant %s", got, want)
		}
		if got := c.String(); got != src {
			t.Errorf("the clone changed:\n got %s\nwant %s", got, src)
		}
	}
}

// TestJSONExact checks JSON's text has no room beyond it (catalogs keep
// thousands of them), and that no two results share memory: the buffer it
// writes in is used again.
func TestJSONExact(t *testing.T) {
	tests := []struct {
		name, src string
	}{
		{name: "scalar", src: `1`},
		{name: "small object", src: `{"type":"object"}`},
		{name: "schema", src: `{"type":"object","properties":{"path":{"type":"string","description":"The file to read, relative to the workspace."},"limit":{"type":"integer","minimum":1}},"required":["path"]}`},
		{name: "larger than a reused buffer", src: `[` + strings.Repeat(`"0123456789abcdef",`, 5000) + `0]`},
	}
	var kept [][]byte
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MustParse(tt.src).JSON()
			if string(got) != tt.src || cap(got) != len(got) {
				t.Errorf("JSON() = %d bytes in a room of %d (equal to the source: %v), want exactly the source", len(got), cap(got), string(got) == tt.src)
			}
			kept = append(kept, got)
		})
	}
	for i, tt := range tests {
		if string(kept[i]) != tt.src {
			t.Errorf("%s: a later JSON() changed an earlier result: %.40s", tt.name, kept[i])
		}
	}
}

func TestMustParseTypes(t *testing.T) {
	for _, tt := range []struct {
		in   string
		kind Kind
	}{{`null`, Null}, {`true`, Bool}, {`false`, Bool}, {`-0`, Number}, {`1E+2`, Number}, {`""`, String}, {`[]`, Array}, {`{}`, Object}} {
		v := MustParse(" " + tt.in + "\n")
		if v.Kind() != tt.kind || v.String() != tt.in {
			t.Errorf("MustParse(%s): kind %d, text %s", tt.in, v.Kind(), v)
		}
	}
}

// TestOptionsMaxDepth: a host's limit holds at its value, and a document
// far deeper than any limit ends at the limit with its offset.
func TestOptionsMaxDepth(t *testing.T) {
	tests := []struct {
		name string
		max  int
		in   string
		want string // the error; "" for none
	}{
		{"at a lowered limit", 3, `{"a":[[1]]}`, ""},
		{"past a lowered limit", 3, `{"a":[[[1]]]}`, "offset 8: JSON nests deeper than 3 levels, the limit"},
		{"a raised limit", 2000, strings.Repeat("[", 1500) + strings.Repeat("]", 1500), ""},
		{"far past the default", 0, strings.Repeat(`{"a":`, 1_000_000) + "1" + strings.Repeat("}", 1_000_000), "offset 5005: JSON nests deeper than 1,000 levels, the limit"},
		{"an empty object past the limit", 2, `[[[{}]]]`, "offset 3: JSON nests deeper than 2 levels, the limit"},
		{"a key at the limit", 2, `[{"a":1}]`, ""},
		{"past the tokenizer's nesting", 20_000, strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001), "offset 10000: JSON nests deeper than 10,000 levels, the JSON tokenizer's limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{MaxDepth: tt.max}
			_, err := o.Parse([]byte(tt.in))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
			// Compact holds to the same limit, with the same problem.
			want := tt.want
			if want == "" {
				want = fmt.Sprint(nil)
			}
			if _, err := o.Compact([]byte(tt.in)); fmt.Sprint(err) != want {
				t.Errorf("Compact: error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestOptionsOf: a Go value converted within a limit is held to it.
func TestOptionsOf(t *testing.T) {
	var deep any = 1.0
	for range 20 {
		deep = map[string]any{"a": deep}
	}
	if _, err := (Options{MaxDepth: 20}).Of(deep); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	if _, err := (Options{MaxDepth: 19}).Of(deep); err == nil || !strings.Contains(err.Error(), "JSON nests deeper than 19 levels, the limit") {
		t.Errorf("past the limit: %v", err)
	}
}

func TestStringMember(t *testing.T) {
	tests := []struct {
		name, data, key, want string
		ok                    bool
	}{
		{"first", `{"name":"read","x":1}`, "name", "read", true},
		{"after others", `{"a":{"name":"inner"},"b":[1,{"c":2}],"name":"read"}`, "name", "read", true},
		{"escaped", `{"name":"a\u003cb\n"}`, "name", "a<b\n", true},
		{"whitespace", " { \"name\" : \"read\" } ", "name", "read", true},
		{"missing", `{"a":"name"}`, "name", "", false},
		{"not a string", `{"name":null}`, "name", "", false},
		{"not an object", `["name","read"]`, "name", "", false},
		{"nested only", `{"a":{"name":"read"}}`, "name", "", false},
		{"broken before", `{"a":tru,"name":"read"}`, "name", "", false},
		{"empty", ``, "name", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := StringMember([]byte(tt.data), tt.key)
			if got != tt.want || ok != tt.ok {
				t.Errorf("StringMember(%s, %q) = %q, %v; want %q, %v", tt.data, tt.key, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestMember(t *testing.T) {
	tests := []struct {
		name, data, key, want string
		ok                    bool
	}{
		{"object", `{"name":"read","inputSchema":{"type":"object","properties":{}},"x":1}`, "inputSchema", `{"type":"object","properties":{}}`, true},
		{"as written", `{"inputSchema" : { "type" : "object" } }`, "inputSchema", `{ "type" : "object" }`, true},
		{"last", `{"a":[1,2],"b":null}`, "b", `null`, true},
		{"missing", `{"a":[1,2]}`, "b", ``, false},
		{"broken value", `{"b":[1,}`, "b", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			got := Member(data, tt.key)
			if ok := got != nil; string(got) != tt.want || ok != tt.ok {
				t.Fatalf("Member(%s, %q) = %s, %v; want %s, %v", tt.data, tt.key, got, ok, tt.want, tt.ok)
			}
			if got != nil && (cap(got) != len(got) || &got[0] != &data[bytes.Index(data, got)]) {
				t.Errorf("Member returned a copy, or a slice with room after it (cap %d, len %d): want a slice of data", cap(got), len(got))
			}
		})
	}
}

func TestElements(t *testing.T) {
	tests := []struct {
		name, data string
		want       []string
		ok         bool
	}{
		{"objects", `[{"name":"a"},{"name":"b","x":[1,2]}]`, []string{`{"name":"a"}`, `{"name":"b","x":[1,2]}`}, true},
		{"as written", ` [ 1 , "x" ] `, []string{`1`, `"x"`}, true},
		{"empty", `[]`, nil, true},
		{"not an array", `{"a":1}`, nil, false},
		{"null", `null`, nil, false},
		{"broken", `[1,}`, nil, false},
		{"data after it", `[1] 2`, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			items, ok := Elements(data)
			var got []string
			for _, it := range items {
				got = append(got, string(it))
				if cap(it) != len(it) || &it[0] != &data[bytes.Index(data, it)] {
					t.Errorf("%s is a copy, or has room after it: want a slice of data", it)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || ok != tt.ok {
				t.Errorf("Elements(%s): ok %v, want %v; (-want +got):\n%s", tt.data, ok, tt.ok, diff)
			}
		})
	}
}
