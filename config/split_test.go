package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kballard/go-shellquote"
)

// FuzzSplitWords holds splitWords to shellquote.Split: the same words, or
// an error for the same inputs.
func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{
		"jp-tools {{tool}} {{context}} --layer 1",
		"", " ", "a", " a ", "a  b", "a\tb\nc", "a\rb", "a\vb", "a\u00a0b", "\xff \xfe",
		"rg --json -e 'a b'", `say "x y"`, `a\ b`, "a\\\nb", "'unbalanced", "trailing\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotErr := splitWords(s)
		want, wantErr := shellquote.Split(s)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("splitWords(%q) error %v, shellquote %v", s, gotErr, wantErr)
		}
		if gotErr != nil {
			return
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("splitWords(%q) (-shellquote +got):\n%s", s, diff)
		}
	})
}
