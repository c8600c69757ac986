package jsonv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/strata-config/strata/internal/limits"
)

// parseViaDecoder is the parser Parse replaced, driven by encoding/json's
// Decoder.Token, kept to compare with: in BenchmarkParse for speed, in
// FuzzRoundTrip for the Values it builds.
func parseViaDecoder(b []byte) (*Value, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	p := decoderParser{data: b, dec: dec}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

type decoderParser struct {
	data []byte
	dec  *json.Decoder
}

func (p *decoderParser) value(depth int) (*Value, error) {
	if depth > limits.Depth {
		return nil, errors.New("JSON nested too deeply")
	}
	start := p.next()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		v := &Value{kind: Object}
		if t == '[' {
			v.kind = Array
		}
		var texts []string
		for p.dec.More() {
			if v.kind == Object {
				start := p.next()
				kt, err := p.dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				if v.Get(k) != nil {
					return nil, fmt.Errorf("key %q appears twice in an object", k)
				}
				v.keys = append(v.keys, k)
				text := string(p.data[start:p.dec.InputOffset()])
				if text == `"`+k+`"` && plainKey(k) {
					text = ""
				}
				texts = append(texts, text)
			}
			e, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.items = append(v.items, e)
		}
		if _, err := p.dec.Token(); err != nil {
			return nil, err
		}
		v.texts = keyTexts(texts)
		return v, nil
	case nil:
		return &Value{kind: Null, raw: "null"}, nil
	case bool:
		return &Value{kind: Bool, raw: fmt.Sprint(t)}, nil
	case json.Number:
		return &Value{kind: Number, raw: string(t)}, nil
	case string:
		end := int(p.dec.InputOffset())
		return &Value{kind: String, raw: string(p.data[start:end])}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// next returns the offset where the next token starts.
func (p *decoderParser) next() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\n', '\r', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

// toolSchema returns the input schema of a made-up tool with n
// parameters, as compact JSON the way MCP servers send it (zod's
// JSON Schema output, key order and all).
func toolSchema(seed, n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	var required []string
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		name := []string{"path", "query", "limit", "offset", "encoding", "recursive", "options", "patterns", "timeout_ms", "cursor", "labels", "mode"}[(seed+i)%12]
		if i >= 12 {
			name = fmt.Sprintf("%s_%d", name, i/12)
		}
		fmt.Fprintf(&b, "%q:", name)
		switch (seed + i) % 6 {
		case 0:
			fmt.Fprintf(&b, `{"type":"string","minLength":1,"description":"The file or directory to work on, relative to the workspace root (%d).\nUse forward slashes; \"~\" is not expanded. Exemple: café/naïve.txt"}`, seed)
			required = append(required, name)
		case 1:
			b.WriteString(`{"type":"integer","minimum":0,"maximum":10000,"default":200,"description":"How many results to return at most; 0 means no limit."}`)
		case 2:
			b.WriteString(`{"type":"string","enum":["utf-8","utf-16le","latin1","base64"],"default":"utf-8","description":"How to decode the file's bytes."}`)
		case 3:
			b.WriteString(`{"type":"boolean","default":false,"description":"Whether to descend into subdirectories."}`)
		case 4:
			b.WriteString(`{"type":"object","properties":{"followSymlinks":{"type":"boolean"},"maxDepth":{"type":"integer","exclusiveMinimum":0},"ignore":{"type":"array","items":{"type":"string","pattern":"^[^\\u0000]+$"}}},"additionalProperties":false,"description":"Fine-tuning of the walk."}`)
		case 5:
			b.WriteString(`{"type":"array","items":{"anyOf":[{"type":"string"},{"type":"number","multipleOf":0.5}]},"minItems":1,"maxItems":64,"description":"Glob patterns, as in .gitignore; a number is a size in MiB (1.5e3 at most)."}`)
		}
	}
	b.WriteString(`},"required":[`)
	for i, r := range required {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q", r)
	}
	b.WriteString(`],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`)
	return b.String()
}

// toolsList returns a tools/list result of at least size bytes and at
// least tools tools.
func toolsList(size, tools int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"tools":[`)
	for i := 0; b.Len() < size || i < tools; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","title":"Tool %d","description":"Does thing %d to the workspace. Read the \"path\" docs first.","inputSchema":%s,"annotations":{"readOnlyHint":%t,"openWorldHint":false}}`,
			i, i, i, toolSchema(i, 4+i%9), i%2 == 0)
	}
	b.WriteString(`],"nextCursor":null}`)
	return b.Bytes()
}

func benchInputs(tb testing.TB) []struct {
	name string
	data []byte
} {
	small := []byte(toolSchema(0, 13))
	large := toolsList(200<<10, 0)
	huge := toolsList(0, 1000)
	for _, in := range [][]byte{small, large, huge} {
		if !json.Valid(in) {
			tb.Fatalf("the generated input is not valid JSON: %.200s", in)
		}
	}
	return []struct {
		name string
		data []byte
	}{{"2KB", small}, {"200KB", large}, {"1000-tools", huge}}
}

func TestBenchInputs(t *testing.T) {
	for _, in := range benchInputs(t) {
		v, err := Parse(in.data)
		if err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
		if !bytes.Equal(v.JSON(), in.data) {
			t.Errorf("%s: the round trip changed the input", in.name)
		}
		t.Logf("%s: %d bytes", in.name, len(in.data))
	}
}

func BenchmarkParse(b *testing.B) {
	for _, in := range benchInputs(b) {
		b.Run(in.name+"/new", func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(in.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/old", func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseViaDecoder(in.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/unmarshal", func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				var x any
				if err := json.Unmarshal(in.data, &x); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
