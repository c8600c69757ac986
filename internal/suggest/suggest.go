// Package suggest finds the closest of a set of names to a misspelt one.
package suggest

import (
	"strings"
	"unicode/utf8"
)

// Closest returns the candidate nearest to name by edit distance (with
// transpositions), or "" when none is near enough to be a plausible typo.
func Closest(name string, candidates []string) string {
	if !anyNearEnough(name, candidates) {
		return "" // and a long name costs no edit distance
	}
	best, bestDist := "", -1
	lname := strings.ToLower(name)
	for _, c := range candidates {
		d := distance(lname, strings.ToLower(c))
		if bestDist < 0 || d < bestDist || d == bestDist && c < best {
			best, bestDist = c, d
		}
	}
	if best == "" {
		return ""
	}
	limit := max(1, (max(len(name), len(best))+1)/3)
	if bestDist > limit || bestDist == len(name) {
		return ""
	}
	return best
}

// Distance is the edit distance between a and b (with transpositions),
// in any case: how far apart two names Closest compares are.
func Distance(a, b string) int { return distance(strings.ToLower(a), strings.ToLower(b)) }

// anyNearEnough reports whether a candidate could be near enough to name:
// the edit distance is at least the difference in length, and Closest
// accepts no more than a third of the longer one.
func anyNearEnough(name string, candidates []string) bool {
	n := utf8.RuneCountInString(name)
	for _, c := range candidates {
		limit := max(1, (max(len(name), len(c))+1)/3)
		if d := n - utf8.RuneCountInString(c); d <= limit && -d <= limit {
			return true
		}
	}
	return false
}

// distance is the optimal string alignment distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
