package suggest

import "testing"

func TestClosest(t *testing.T) {
	keys := []string{"source", "command", "enable", "summary", "description", "examples", "run", "result", "parameters", "options", "questions"}
	tests := []struct {
		name, in, want string
	}{
		{"transposition", "rnu", "run"},
		{"missing letter", "sumary", "summary"},
		{"case", "Source", "source"},
		{"extra letter", "optionss", "options"},
		{"too far", "banana", ""},
		{"single char", "x", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Closest(tt.in, keys); got != tt.want {
				t.Errorf("Closest(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	if got := Closest("ask", nil); got != "" {
		t.Errorf("Closest with no candidates = %q", got)
	}
}
