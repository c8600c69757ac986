// Package budget measures what a catalog's tool definitions cost a model:
// the o200k_base tokens of each tool's definition exactly as an export
// writes it (compact JSON), per tool, per MCP server and in total, and
// checks the total against the config's budget.
//
// The count is o200k_base's for every dialect, the encoding of OpenAI's
// current models; Anthropic's tokenizer is not public, and a provider
// adds tokens of its own around the tools (a system prompt that
// introduces them, framing per tool), so a bill differs from the count by
// those; the count is what the definitions themselves weigh, and ranks
// them.
package budget

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/tokens"
	"github.com/strata-config/strata/partial"
)

// Encoding is the encoding counts are in.
const Encoding = tokens.Encoding

// Stats are the token counts of a catalog in one dialect.
type Stats struct {
	// Dialect is the export's dialect the counts are of (see
	// export.Dialect): strata, openai, anthropic or mcp.
	Dialect string `json:"dialect"`
	// Total is what the tools a request carries cost: every tool but
	// the deferred ones.
	Total int `json:"total"`
	// Deferred is what the deferred tools cost once a search loads them.
	Deferred int `json:"deferred,omitempty"`
	// Budget is the config's budget.tokens, 0 when none.
	Budget int `json:"budget,omitempty"`
	// Tools are the tools, the most costly first (ties by name).
	Tools []ToolCost `json:"tools"`
	// Servers are the sums of each MCP server's tools, the most costly
	// first (ties by name).
	Servers []ServerCost `json:"servers"`
}

// ToolCost is what one tool's definition costs.
type ToolCost struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Tokens int    `json:"tokens"`
	// Load is "deferred" for a tool a search loads; "" for one every
	// request carries.
	Load config.LoadMode `json:"load,omitempty"`
}

// ServerCost is what one MCP server's tools cost.
type ServerCost struct {
	Name string `json:"name"`
	// Tokens and Tools are the cost and number of its tools that every
	// request carries; Deferred the cost of the others.
	Tokens   int `json:"tokens"`
	Tools    int `json:"tools"`
	Deferred int `json:"deferred,omitempty"`
}

// Measure counts the tokens of what w writes, tool by tool.
func Measure(w *export.Written, b config.Budget) Stats {
	return (*Counts)(nil).Measure(w, b)
}

// Counts are token counts kept between runs in a cache directory, by a
// hash of the definition counted: a definition counted before, in any
// catalog, is not counted again, and the encoding's vocabulary (200,000
// entries, about 25 MB and a tenth of a second to build) is built only
// when a definition must be counted. A nil *Counts keeps nothing.
type Counts struct{ c *cache.Counts }

// OpenCounts returns the counts kept in the cache directory dir (a
// workspace's, see the root package's CacheDir); "" keeps none. The
// counts are read on first use; [Counts.Write] writes the new ones.
func OpenCounts(dir string) *Counts {
	c := (&cache.Cache{Dir: dir}).Counts(Encoding, tokens.Counter())
	if c == nil {
		return nil
	}
	return &Counts{c: c}
}

// Equal reports whether c and o are the same counts, a handle on a
// cache file. It lets go-cmp compare values that hold counts.
func (c *Counts) Equal(o *Counts) bool { return c == o }

// Write keeps the counts made since they were read, when there are any.
func (c *Counts) Write() error {
	if c == nil {
		return nil
	}
	return c.c.Write()
}

// Measure is [Measure] with the counts kept in c: what c holds is not
// counted again, and what is counted is added to c. Definitions are
// counted on every CPU at once.
func (c *Counts) Measure(w *export.Written, b config.Budget) Stats {
	var cc *cache.Counts
	if c != nil {
		cc = c.c
	}
	n := make([]int, len(w.Entries))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(w.Entries)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(n); i = int(next.Add(1) - 1) {
				n[i] = cc.Count(string(w.Entries[i].JSON), tokens.Count)
			}
		})
	}
	wg.Wait()
	s := Stats{Dialect: string(w.Dialect), Budget: b.Tokens, Tools: make([]ToolCost, 0, len(w.Entries)), Servers: []ServerCost{}}
	servers := map[string]*ServerCost{}
	for i, e := range w.Entries {
		t := ToolCost{Name: e.Name, Source: e.Source, Tokens: n[i]}
		if e.Deferred {
			t.Load = config.LoadDeferred
			s.Deferred += t.Tokens
		} else {
			s.Total += t.Tokens
		}
		s.Tools = append(s.Tools, t)
		if e.Server == "" {
			continue
		}
		sv := servers[e.Server]
		if sv == nil {
			sv = &ServerCost{Name: e.Server}
			servers[e.Server] = sv
		}
		if e.Deferred {
			sv.Deferred += t.Tokens
		} else {
			sv.Tokens += t.Tokens
			sv.Tools++
		}
	}
	slices.SortFunc(s.Tools, func(a, b ToolCost) int {
		return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), strings.Compare(a.Name, b.Name))
	})
	for _, sv := range servers {
		s.Servers = append(s.Servers, *sv)
	}
	slices.SortFunc(s.Servers, func(a, b ServerCost) int {
		return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), strings.Compare(a.Name, b.Name))
	})
	return s
}

// Top is how many of the most costly tools an over-budget warning names.
const Top = 5

// Check returns the warning that the tools every request carries cost
// more than the budget, naming the [Top] most costly and the fixes; nil
// within the budget, or without one.
func (s Stats) Check() *diag.Error {
	if s.Budget <= 0 || s.Total <= s.Budget {
		return nil
	}
	var top []string
	for _, t := range s.Tools {
		if t.Load == config.LoadDeferred {
			continue
		}
		if len(top) == Top {
			break
		}
		top = append(top, fmt.Sprintf("%s (%d)", t.Name, t.Tokens))
	}
	return &diag.Error{Code: diag.CodeLimit, Severity: diag.SeverityWarning, Path: partial.Path{"budget", "tokens"},
		Msg:  fmt.Sprintf("the %s definitions cost %d tokens, over the budget of %d; the most costly: %s", s.Dialect, s.Total, s.Budget, strings.Join(top, ", ")),
		Hint: `choose a tool set (--toolset NAME, [toolsets.NAME] tools = [...]), load tools when a search finds them (load = "deferred" on a tool, a server or a set), or turn tools off (enable = false)`}
}
