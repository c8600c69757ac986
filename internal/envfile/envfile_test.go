package envfile

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name        string
		src         string
		want        []Var
		wantSkipped []Skipped
	}{
		{
			name: "names, values, comments and blank lines",
			src:  "# a comment\n\nA=1\n  B = two words  \nexport C=3\nD: colon\nE=\n",
			want: []Var{{"A", "1", 3}, {"B", "two words", 4}, {"C", "3", 5}, {"D", "colon", 6}, {"E", "", 7}},
		},
		{
			name: "quotes",
			src:  "A=\"double # not a comment\"\nB='single \\n kept'\nC=`back`\nD=\"line\\nbreak\\r\"\nE=\"unclosed\nF='a' # comment\n",
			want: []Var{
				{"A", "double # not a comment", 1}, {"B", `single \n kept`, 2}, {"C", "back", 3},
				{"D", "line\nbreak\r", 4}, {"E", `"unclosed`, 5}, {"F", "a", 6},
			},
		},
		{
			name: "a trailing comment after an unquoted value",
			src:  "A=value # why\nB=a#b\n",
			want: []Var{{"A", "value", 1}, {"B", "a", 2}},
		},
		{
			name: "the first = or : separates; the rest is the value",
			src:  "URL=https://example.com/a=b\nT:x=y\n",
			want: []Var{{"URL", "https://example.com/a=b", 1}, {"T", "x=y", 2}},
		},
		{
			name: "line breaks of every system",
			src:  "A=1\r\nB=2\rC=3",
			want: []Var{{"A", "1", 1}, {"B", "2", 2}, {"C", "3", 3}},
		},
		{
			name:        "lines that define nothing are reported",
			src:         "A=1\njust words\n=nameless\nB=2\n",
			want:        []Var{{"A", "1", 1}, {"B", "2", 4}},
			wantSkipped: []Skipped{{2, "no = between a name and a value"}, {3, "no name before the ="}},
		},
		{
			name: "a name defined twice is returned twice, in order",
			src:  "A=1\nA=2\n",
			want: []Var{{"A", "1", 1}, {"A", "2", 2}},
		},
		{
			name: "empty",
			src:  "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped := Parse(tt.src)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("vars (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantSkipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"A=1\nB = 2 # c\nexport C='x y'\nD=\"a\\nb\"\n",
		"just words\n=x\n# c\n",
		"A=\"\\\"\"\nB='\\''\n",
		"A:`x`\r\nB\x00=1\r",
		"=\n:\n\"\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		vars, skipped := Parse(src)
		lines := strings.Count(strings.ReplaceAll(src, "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(src, "\r\n", ""), "\r") + 1
		last := 0
		for _, v := range vars {
			if v.Name == "" || strings.ContainsRune(v.Name, 0) {
				t.Fatalf("bad name %q", v.Name)
			}
			if v.Name != strings.TrimSpace(v.Name) {
				t.Fatalf("name %q not trimmed", v.Name)
			}
			if v.Line <= last || v.Line > lines {
				t.Fatalf("line %d out of order or beyond %d lines", v.Line, lines)
			}
			last = v.Line
			if utf8.ValidString(src) && !utf8.ValidString(v.Value) {
				t.Fatalf("value %q is not UTF-8", v.Value)
			}
		}
		for _, s := range skipped {
			if s.Line < 1 || s.Line > lines || s.Reason == "" {
				t.Fatalf("bad skipped line %+v", s)
			}
		}
	})
}
