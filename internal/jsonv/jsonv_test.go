package jsonv

import (
	"bytes"
	"encoding/json"
	"testing"
)

func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		`{"b":1,"a":[true,null,"x\u00e9",1.50e3],"$schema":"http://json-schema.org/draft-07/schema#"}`,
		`[]`, `{}`, `"x"`, `12345678901234567890`, `{"a":{"b":{"c":[1,{"d":-0.0}]}}}`, ` { "a" : 1 } `,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := Parse(b)
		if !json.Valid(b) {
			if err == nil {
				t.Fatalf("Parse accepted invalid JSON %q", b)
			}
			return
		}
		if err != nil {
			return // a repeated key, or nesting too deep
		}
		var want bytes.Buffer
		if err := json.Compact(&want, b); err != nil {
			t.Fatal(err)
		}
		if got := v.JSON(); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("round trip changed the value:\n got %s\nwant %s", got, want.Bytes())
		}
		if !Equal(v, v.Clone()) {
			t.Fatal("a clone differs")
		}
	})
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Equal(MustParse(tt.a), MustParse(tt.b)); got != tt.want {
				t.Errorf("Equal(%s, %s) = %v", tt.a, tt.b, got)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	for _, s := range []string{`{"a":1,"a":2}`, `{`, `1 2`, `{"a":}`} {
		if _, err := Parse([]byte(s)); err == nil {
			t.Errorf("Parse(%s) succeeded", s)
		}
	}
}
