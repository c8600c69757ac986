package secret_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/secret"
)

const value = "sk-live-0123456789"

// holder has secrets where a struct may keep them: exported, unexported,
// in a slice and in a map.
type holder struct {
	Exported   secret.String
	unexported secret.String
	List       []secret.String
	Map        map[string]secret.String
	inner      struct{ s secret.String }
}

// TestStringPrintsItsReference: every way Go prints a value prints a
// secret's reference, never its value, even inside a struct, in an
// unexported field, a slice and a map.
func TestStringPrintsItsReference(t *testing.T) {
	s := secret.From(value, "${env:API_KEY}")
	h := holder{Exported: s, unexported: s, List: []secret.String{s}, Map: map[string]secret.String{"k": s}}
	h.inner.s = s
	js, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := s.MarshalText()
	tests := []struct {
		name, got string
	}{
		{"String", s.String()},
		{"%v", fmt.Sprintf("%v", s)},
		{"%s", fmt.Sprintf("%s", s)},
		{"%q", fmt.Sprintf("%q", s)},
		{"%x", fmt.Sprintf("%x", s)},
		{"%#v", fmt.Sprintf("%#v", s)},
		{"%+v of a struct", fmt.Sprintf("%+v", h)},
		{"%#v of a struct", fmt.Sprintf("%#v", h)},
		{"%v of a pointer", fmt.Sprintf("%v", &h)},
		{"Println", fmt.Sprintln(s, h.List, h.Map)},
		{"an error", fmt.Errorf("cannot start %s: %w", s, fs.ErrNotExist).Error()},
		{"JSON", string(js)},
		{"MarshalText", string(text)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.got, value) {
				t.Errorf("%s shows the value: %s", tt.name, tt.got)
			}
		})
	}
	for _, want := range []struct{ got, want string }{
		{s.String(), "<from ${env:API_KEY}>"},
		{fmt.Sprintf("%q", s), `"<from ${env:API_KEY}>"`},
		{fmt.Sprintf("[%8.3s]", secret.Plain("abcdef")), "[     abc]"},
		{fmt.Sprintf("%#v", s), `secret.From(…, "${env:API_KEY}")`},
		{fmt.Sprintf("%#v", secret.Plain("x")), `secret.Plain("x")`},
		{string(js), `{"Exported":"\u003cfrom ${env:API_KEY}\u003e","List":["\u003cfrom ${env:API_KEY}\u003e"],"Map":{"k":"\u003cfrom ${env:API_KEY}\u003e"}}`},
	} {
		if want.got != want.want {
			t.Errorf("got %s, want %s", want.got, want.want)
		}
	}
}

func TestStringValue(t *testing.T) {
	s := secret.From(value, "${env:API_KEY}")
	if s.Reveal() != value || !s.IsSecret() || s.Empty() {
		t.Errorf("From: %q, secret %v, empty %v", s.Reveal(), s.IsSecret(), s.Empty())
	}
	p := secret.Plain("npx")
	if p.Reveal() != "npx" || p.String() != "npx" || p.IsSecret() {
		t.Errorf("Plain: %q, %q, secret %v", p.Reveal(), p.String(), p.IsSecret())
	}
	var zero secret.String
	if !zero.Empty() || zero.Reveal() != "" || zero.String() != "" || zero != secret.Plain("") {
		t.Errorf("the zero String: %q %q", zero.Reveal(), zero.String())
	}
	if e := secret.From("", "${EMPTY}"); !e.Empty() || !e.IsSecret() || e.String() != "<from ${EMPTY}>" {
		t.Errorf("an empty secret: %q, empty %v", e.String(), e.Empty())
	}
	abs := secret.From("bin/x", "${DIR}/x").Derive(func(p string) string { return "/w/" + p })
	if abs.Reveal() != "/w/bin/x" || abs.String() != "<from ${DIR}/x>" {
		t.Errorf("Derive: %q shown %q", abs.Reveal(), abs.String())
	}
	var read secret.String
	if err := read.UnmarshalText([]byte("${env:X}")); err != nil || read != secret.Plain("${env:X}") {
		t.Errorf("UnmarshalText: %v, %#v", err, read)
	}
	// Equal: the same value from the same place.
	if !s.Equal(secret.From(value, "${env:API_KEY}")) || s.Equal(secret.From(value, "${env:OTHER}")) || s.Equal(secret.Plain(value)) {
		t.Error("Equal")
	}
	if d := cmp.Diff(secret.Plains("a", "b"), []secret.String{secret.Plain("a"), secret.Plain("b")}); d != "" {
		t.Errorf("Plains (-want +got):\n%s", d)
	}
	if got := secret.Values([]secret.String{s, p}); !cmp.Equal(got, []string{value, "npx"}) {
		t.Errorf("Values: %q", got)
	}
	if got := secret.Texts([]secret.String{s, p}); !cmp.Equal(got, []string{"<from ${env:API_KEY}>", "npx"}) {
		t.Errorf("Texts: %q", got)
	}
}

func TestRedact(t *testing.T) {
	url := secret.From("https://x.example/mcp?key="+value, "https://x.example/mcp?key=${env:K}")
	key := secret.From(value, "${env:K}")
	short := secret.From("on", "${env:ON}")
	tests := []struct {
		name, text, want string
		secrets          []secret.String
	}{
		{"none", "nothing to hide", "nothing to hide", []secret.String{key}},
		{"a value", "bad key " + value + "!", "bad key <from ${env:K}>!", []secret.String{key}},
		{"the longest first", `Post "https://x.example/mcp?key=` + value + `": refused`, `Post "<from https://x.example/mcp?key=${env:K}>": refused`, []secret.String{key, url}},
		{"a short value is left", "turned on", "turned on", []secret.String{short}},
		{"plain text is left", "npx -y", "npx -y", []secret.String{secret.Plain("npx")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := secret.Redact(tt.text, tt.secrets...); got != tt.want {
				t.Errorf("Redact = %q, want %q", got, tt.want)
			}
		})
	}
	err := fmt.Errorf("dial %s: %w", value, fs.ErrNotExist)
	got := secret.RedactError(err, key)
	if got.Error() != "dial <from ${env:K}>: file does not exist" || !errors.Is(got, fs.ErrNotExist) {
		t.Errorf("RedactError: %v", got)
	}
	if other := errors.New("clean"); secret.RedactError(other, key) != other || secret.RedactError(nil, key) != nil {
		t.Error("RedactError of an error without the value is the error itself")
	}
}

func ExampleString() {
	token := secret.From("ghp-0123456789", "${env:GITHUB_TOKEN}")
	args := []secret.String{secret.Plain("--token"), token}
	fmt.Println(args)
	fmt.Printf("cannot start server %q\n", token)
	// Only the launch reads the value.
	fmt.Println(len(token.Reveal()))
	// Output:
	// [--token <from ${env:GITHUB_TOKEN}>]
	// cannot start server "<from ${env:GITHUB_TOKEN}>"
	// 14
}
