package budget_test

import (
	"fmt"
	"os"

	"github.com/strata-config/strata/budget"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/resolve"
)

// A host keeps the counts in its cache directory (a workspace's
// CacheDir): a definition counted by an earlier run is not counted again.
func ExampleOpenCounts() {
	dir, err := os.MkdirTemp("", "counts")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	cat := &resolve.Catalog{Tools: []resolve.Definition{{
		Name: "grep", Source: "local", Summary: "Search files for a pattern.",
		InputSchema: resolve.MustSchema(`{"type":"object","properties":{"pattern":{"type":"string"}},"required":["pattern"]}`),
	}}}
	written, err := export.Write(cat, export.OpenAI, config.Budget{})
	if err != nil {
		panic(err)
	}
	for range 2 { // the second run reads the count the first kept
		counts := budget.OpenCounts(dir)
		st := counts.Measure(written, config.Budget{})
		if err := counts.Write(); err != nil {
			panic(err)
		}
		fmt.Println(st.Dialect, st.Total, "tokens")
	}
	// Output:
	// openai 34 tokens
	// openai 34 tokens
}
