package config

import "github.com/strata-config/strata/internal/suggest"

// didYouMean returns a did-you-mean hint, or "".
func didYouMean(s string, candidates []string) string {
	if c := suggest.Closest(s, candidates); c != "" {
		return "did you mean " + c + "?"
	}
	return ""
}
