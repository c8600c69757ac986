package discover

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/upstream"
)

// TestToolsOfHeldOnce: a listed tool's schemas and annotations are the
// members of its upstream JSON, read as they are and kept as slices of
// it, not copies: a server's 10,000 tools are held once. A tool the SDK
// decoded (no upstream JSON) has its own texts.
func TestToolsOfHeldOnce(t *testing.T) {
	const listing = `{"tools":[{"name":"read","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"_meta":{"k":1}}]}`
	tests := []struct {
		name    string
		answer  string
		sharing bool
	}{
		{"listed", listing, true},
		{"decoded", `{"decoded":true,"tools":[{"name":"read","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a upstream.Answer
			if err := a.UnmarshalJSON([]byte(tt.answer)); err != nil {
				t.Fatal(err)
			}
			d := (&session{}).toolsOf("fs", a)["read"]
			got := map[string]string{"input": d.InputSchema.String(), "output": d.OutputSchema.String(), "annotations": string(d.Annotations)}
			want := map[string]string{"input": `{"type":"object","properties":{"path":{"type":"string"}}}`, "output": `{"type":"object"}`, "annotations": `{"readOnlyHint":true}`}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("texts (-want +got):\n%s", diff)
			}
			for part, text := range map[string][]byte{"input": d.InputSchema.JSON(), "output": d.OutputSchema.JSON(), "annotations": d.Annotations} {
				i := bytes.Index(d.Upstream, text)
				shared := i >= 0 && &d.Upstream[i] == &text[0]
				if shared != tt.sharing {
					t.Errorf("%s schema a slice of the upstream JSON: %v, want %v", part, shared, tt.sharing)
				}
			}
		})
	}
}
