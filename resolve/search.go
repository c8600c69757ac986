package resolve

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// MaxSearchQuery is the longest query [Search] takes, in bytes (a regular
// expression of Anthropic's tool search is at most 200 characters).
const MaxSearchQuery = 200

// DefaultSearchResults is how many tools [Search] returns unless asked.
const DefaultSearchResults = 5

// Search finds the tools among defs that query describes, the best match
// first, at most limit (≤ 0: [DefaultSearchResults]). The query is words,
// ranked as BM25 ranks them over each tool's name, summary, parameter
// names and description (a name counts most, then the summary: a short
// summary is what a search matches first); or, with regex, a regular
// expression (RE2, case-insensitive) that a tool matches when it matches
// one of those, names first. A query longer than [MaxSearchQuery], or a
// regular expression that does not compile, is an error.
func Search(defs []Definition, query string, regex bool, limit int) ([]Definition, error) {
	if limit <= 0 {
		limit = DefaultSearchResults
	}
	if len(query) > MaxSearchQuery {
		return nil, fmt.Errorf("the query is %d bytes; at most %d", len(query), MaxSearchQuery)
	}
	if regex {
		return searchRegex(defs, query, limit)
	}
	return searchWords(defs, query, limit), nil
}

// fields are the texts of a tool a search reads, with their weights.
func fields(d Definition) [4]struct {
	text   string
	weight float64
} {
	return [4]struct {
		text   string
		weight float64
	}{{d.Name, 3}, {d.Summary, 2}, {strings.Join(paramNames(d), " "), 1.5}, {d.Description, 1}}
}

func searchRegex(defs []Definition, query string, limit int) ([]Definition, error) {
	re, err := regexp.Compile("(?i)" + query)
	if err != nil {
		return nil, fmt.Errorf("the query is not a regular expression: %v", err)
	}
	type hit struct {
		d    Definition
		rank int // the first field that matches: name 0, summary 1, ...
	}
	var hits []hit
	for _, d := range defs {
		for i, f := range fields(d) {
			if re.MatchString(f.text) {
				hits = append(hits, hit{d, i})
				break
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(a.rank, b.rank), strings.Compare(a.d.Name, b.d.Name)) })
	out := make([]Definition, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.d)
	}
	return out, nil
}

// searchWords ranks defs by BM25 (k1 = 1.2, b = 0.75) over their fields,
// each term's frequency weighted by its field's weight.
func searchWords(defs []Definition, query string, limit int) []Definition {
	terms := words(query)
	if len(terms) == 0 || len(defs) == 0 {
		return nil
	}
	tf := make([]map[string]float64, len(defs))
	lengths := make([]float64, len(defs))
	df := map[string]int{}
	total := 0.0
	for i, d := range defs {
		tf[i] = map[string]float64{}
		for _, f := range fields(d) {
			for _, w := range words(f.text) {
				tf[i][w] += f.weight
				lengths[i] += f.weight
			}
		}
		for w := range tf[i] {
			df[w]++
		}
		total += lengths[i]
	}
	avg := total / float64(len(defs))
	const k1, b = 1.2, 0.75
	type scored struct {
		d     Definition
		score float64
	}
	var hits []scored
	n := float64(len(defs))
	for i, d := range defs {
		score := 0.0
		for _, t := range terms {
			f := tf[i][t]
			if f == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[t])+0.5)/(float64(df[t])+0.5))
			score += idf * f * (k1 + 1) / (f + k1*(1-b+b*lengths[i]/avg))
		}
		if score > 0 {
			hits = append(hits, scored{d, score})
		}
	}
	slices.SortFunc(hits, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), strings.Compare(a.d.Name, b.d.Name))
	})
	out := make([]Definition, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.d)
	}
	return out
}

// words splits text into lower-case words: at anything but letters and
// digits, and where a lower-case letter meets an upper-case one
// (getWeather: get, weather).
func words(text string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			cur = append(cur, r)
			prevLower = unicode.IsLower(r)
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return out
}

// paramNames returns the names of the top-level properties of d's input
// schema.
func paramNames(d Definition) []string {
	if d.InputSchema.IsZero() {
		return nil
	}
	v, err := d.InputSchema.checker().Value()
	if err != nil {
		return nil
	}
	return slices.Sorted(slices.Values(v.Get("properties").Keys()))
}
