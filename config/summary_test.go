package config

import "testing"

func TestSplit(t *testing.T) {
	tests := []struct {
		name, in, summary, rest string
	}{
		{"two sentences", "Count words in a text. Counts are computed locally.", "Count words in a text.", "Counts are computed locally."},
		{"abbreviation", "Read files, e.g. notes or logs. Nothing else.", "Read files, e.g. notes or logs.", "Nothing else."},
		{"i.e.", "Search the tree (i.e. the workspace). Fast.", "Search the tree (i.e. the workspace).", "Fast."},
		{"number", "Version 1.5 of the tool. More.", "Version 1.5 of the tool.", "More."},
		{"domain", "Fetch example.com pages. Then stop.", "Fetch example.com pages.", "Then stop."},
		{"question", "Is it up? Checks the host.", "Is it up?", "Checks the host."},
		{"exclamation with quote", `Say "hi!" Then go.`, `Say "hi!"`, "Then go."},
		{"no end", "Reads a file", "Reads a file", ""},
		{"ends at the end", "Reads a file.", "Reads a file.", ""},
		{"blank line", "Reads a file\n\nLong text. More.", "Reads a file", "Long text. More."},
		{"newline after period", "Reads a file.\nMore text.", "Reads a file.", "More text."},
		{"initial", "Written by J. Smith for you. Enjoy.", "Written by J. Smith for you.", "Enjoy."},
		{"etc.", "Lists files, dirs, etc. in a tree. Done.", "Lists files, dirs, etc. in a tree.", "Done."},
		{"ellipsis", "Wait... then go. Really.", "Wait...", "then go. Really."},
		{"empty", "  ", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r := Split(tt.in)
			if s != tt.summary || r != tt.rest {
				t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.in, s, r, tt.summary, tt.rest)
			}
		})
	}
}
