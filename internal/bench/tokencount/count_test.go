// Package tokencount compares the o200k_base counters the Go module proxy
// serves on budget's reference set: whether each counts exactly as the
// reference (gpt-tokenizer), and what a token costs. It is a module of its
// own, so that strata's go.mod names no second tokenizer:
//
//	cd internal/bench/tokencount && go test -run TestExact -v . && go test -run XXX -bench . -count 6 .
package tokencount

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	pk "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/tiktoken-go/tokenizer/codec"
)

type reference struct {
	Format, Name, Text string
	Tokens             int
}

// references returns budget's reference set and its total.
func references(t testing.TB) ([]reference, int) {
	b, err := os.ReadFile("../../../budget/testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []reference
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, r := range refs {
		total += r.Tokens
	}
	return refs, total
}

// counters are the candidates, each made by its function (which builds
// its vocabulary).
var counters = []struct {
	name string
	make func(testing.TB) func(string) int
}{
	{"tiktoken-go-tokenizer", func(t testing.TB) func(string) int {
		c := codec.NewO200kBase()
		return func(s string) int { n, _ := c.Count(s); return n }
	}},
	{"pkoukk-tiktoken-go", func(t testing.TB) func(string) int {
		pk.SetBpeLoader(loader.NewOfflineLoader())
		e, err := pk.GetEncoding("o200k_base")
		if err != nil {
			t.Fatal(err)
		}
		return func(s string) int { return len(e.Encode(s, nil, nil)) }
	}},
}

// TestExact counts the reference set with each candidate; it fails for a
// count that differs from the reference.
func TestExact(t *testing.T) {
	refs, total := references(t)
	for _, c := range counters {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			count := c.make(t)
			count("x")
			built := time.Since(start)
			got := 0
			for _, r := range refs {
				n := count(r.Text)
				got += n
				if n != r.Tokens {
					t.Errorf("%s %s: %d tokens, the reference counts %d", r.Format, r.Name, n, r.Tokens)
				}
			}
			t.Logf("%d definitions, %d tokens (reference %d); vocabulary built in %v", len(refs), got, total, built)
		})
	}
}

// BenchmarkCount counts the whole reference set with each candidate;
// ns/token is the cost of one token.
func BenchmarkCount(b *testing.B) {
	refs, total := references(b)
	for _, c := range counters {
		b.Run(c.name, func(b *testing.B) {
			count := c.make(b)
			b.ReportAllocs()
			for b.Loop() {
				for _, r := range refs {
					count(r.Text)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(total), "ns/token")
		})
	}
}
