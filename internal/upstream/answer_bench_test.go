package upstream_test

import (
	"fmt"
	"testing"

	"github.com/strata-config/strata/internal/upstream"
)

// BenchmarkAnswerRead reads back a cached answer of 10,000 tools, each
// with a schema of three parameters (about 3 MB): what a warm resolve or
// serve does with a large server's cache entry.
func BenchmarkAnswerRead(b *testing.B) {
	var raws []string
	for i := range 10_000 {
		raws = append(raws, fmt.Sprintf(`{"name":"tool_%05d","description":"Tool %d reads a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string","description":"The file to read, relative to the workspace."},"limit":{"type":"integer","minimum":1,"description":"At most this many lines."},"mode":{"type":"string","enum":["text","lines"]}},"required":["path"]}}`, i, i))
	}
	data, err := answer(raws...).MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var a upstream.Answer
		if err := a.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}
