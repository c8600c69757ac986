package clients

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/doc"
)

// refPattern is the clients' reference, as a regular expression: the
// independent implementation expandRefs is checked against.
var refPattern = regexp.MustCompile(`\$\{[^}]*\}`)

func TestExpandRefs(t *testing.T) {
	env := map[string]string{"A": "1", "EMPTY": ""}
	resolve := func(body string) (string, bool, error) {
		switch {
		case body == "skip":
			return "", false, nil
		case strings.HasPrefix(body, "bad"):
			return "", false, errors.New("bad " + body)
		}
		v, ok := env[body]
		return v, ok, nil
	}
	tests := []struct {
		name     string
		in, want string
		wantErrs []string
	}{
		{"no reference", "plain $A text", "plain $A text", nil},
		{"references", "${A}-${EMPTY}-${A}", "1--1", nil},
		{"declined and unknown stay", "${skip}/${NOPE}", "${skip}/${NOPE}", nil},
		{"errors stay and are all returned", "${bad1}${A}${bad2}", "${bad1}1${bad2}", []string{"bad bad1", "bad bad2"}},
		{"no closing brace is text", "${A", "${A", nil},
		{"a reference ends at the first brace", "${A:-${B}}", "${A:-${B}}", nil},
		{"empty body", "${}", "${}", nil},
		{"adjacent dollar signs", "$${A}", "$1", nil},
		{"unicode around", "é${A}✓", "é1✓", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := expandRefs(tt.in, resolve)
			if got != tt.want {
				t.Errorf("expandRefs(%q) = %q, want %q", tt.in, got, tt.want)
			}
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			if diff := cmp.Diff(tt.wantErrs, msgs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzExpandVariables(f *testing.F) {
	for _, s := range []string{
		"", "plain", "${A}", "${A:-d}", "${A:-}", "x${A}y${B:-${C}}z", "${env:HOME}/${userHome}",
		"${workspaceFolder}${/}${pathSeparator}${workspaceFolderBasename}", "${input:key}", "${input:}",
		"${config:a.b}", "${file}", "${", "}", "${}", "$${A}", "${A${B}}", "\xff${\xfe}", "${env:}",
		"${A:-${B:-c}}", "${ws}",
	} {
		f.Add(s)
	}
	env := map[string]string{"A": "1", "HOME": "/h", "EMPTY": ""}
	f.Fuzz(func(t *testing.T, s string) {
		// Against the regular expression: the same references, in order.
		var bodies []string
		got, errs := expandRefs(s, func(body string) (string, bool, error) {
			bodies = append(bodies, body)
			return "<" + body + ">", true, nil
		})
		var want []string
		for _, m := range refPattern.FindAllString(s, -1) {
			want = append(want, m[2:len(m)-1])
		}
		if diff := cmp.Diff(want, bodies); diff != "" {
			t.Fatalf("references of %q (-regexp +expandRefs):\n%s", s, diff)
		}
		if len(errs) > 0 {
			t.Fatalf("errors without failures: %v", errs)
		}
		wantOut := refPattern.ReplaceAllStringFunc(s, func(m string) string { return "<" + m[2:len(m)-1] + ">" })
		if got != wantOut {
			t.Fatalf("expandRefs(%q) = %q, want %q", s, got, wantOut)
		}
		// Declining everything leaves the string as it is.
		if same, errs := expandRefs(s, func(string) (string, bool, error) { return "", false, nil }); same != s || errs != nil {
			t.Fatalf("declining changed %q to %q (%v)", s, same, errs)
		}
		// Each client's rules: never a panic; every failure is explained.
		for _, fo := range []Format{ClaudeCode, Cursor, VSCode} {
			fi := &foreignFile{
				ctx: context.Background(), f: fo, d: &document{name: "/w/.vscode/mcp.json"},
				im:        &Env{Environ: env, Dir: "/w", answers: map[string]string{}},
				inputs:    map[string]*doc.Node{},
				passwords: map[string]string{},
			}
			var resolve func(string) (string, bool, error)
			if fo == ClaudeCode {
				resolve = fi.claudeCodeVar
			} else {
				resolve = fi.editorVar
			}
			_, errs := expandRefs(s, resolve)
			for _, err := range errs {
				var ve *varError
				if !errors.As(err, &ve) || ve.msg == "" {
					t.Fatalf("%s: unexplained error %v for %q", fo, err, s)
				}
			}
		}
	})
}
