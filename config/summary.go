package config

import (
	"strings"
	"unicode"
)

// abbreviations end with a period that does not end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "approx": true, "incl": true,
	"excl": true, "e.g.,": true, "mr": true, "mrs": true, "ms": true, "dr": true, "st": true,
	"no": true, "fig": true, "al": true, "resp": true, "viz": true, "ca": true, "ex": true, "eg": true, "ie": true,
}

// Split splits a description into its first sentence and the rest: the
// summary a model sees and the text loaded on demand. A sentence ends at
// '.', '!' or '?' followed by a space or the end, unless the word before
// is an abbreviation ("e.g.") or the period sits inside a number ("1.5");
// a blank line also ends it. Text without an end is all summary.
func Split(text string) (summary, rest string) {
	text = strings.TrimSpace(text)
	if i := strings.Index(text, "\n\n"); i >= 0 {
		if s, r := splitSentence(text[:i]); r == "" {
			return s, strings.TrimSpace(text[i:])
		}
	}
	return splitSentence(text)
}

// Join joins a summary and a description into one text: the summary, a
// blank line and the description, or the description alone when it starts
// with the summary already (or either alone when the other is empty).
func Join(summary, description string) string {
	switch {
	case summary == "":
		return description
	case description == "":
		return summary
	case strings.HasPrefix(description, summary):
		return description
	}
	return summary + "\n\n" + description
}

func splitSentence(text string) (string, string) {
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		end := i + 1
		for end < len(text) && (text[end] == '.' || text[end] == '!' || text[end] == '?' || text[end] == ')' || text[end] == '"' || text[end] == '\'') {
			end++
		}
		if end < len(text) && !unicode.IsSpace(rune(text[end])) {
			continue // 1.5, e.g.x, example.com
		}
		if c == '.' && isAbbreviation(text[:i]) {
			continue
		}
		return strings.TrimSpace(text[:end]), strings.TrimSpace(text[end:])
	}
	return text, ""
}

// isAbbreviation reports whether the word that ends before reads as an
// abbreviation: a known one, or a single letter (initials: "J. Smith").
func isAbbreviation(before string) bool {
	start := strings.LastIndexFunc(before, func(r rune) bool { return unicode.IsSpace(r) || r == '(' })
	word := strings.ToLower(before[start+1:])
	if abbreviations[word] {
		return true
	}
	return len(word) == 1 && unicode.IsLetter(rune(word[0]))
}
