package cli

import (
	"fmt"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
)

// applyCfg applies --cfg overrides, in order, to p, and reports the
// problems of all of them in that order.
func applyCfg(p *config.Partial, args []string) error {
	var errs diag.Errors
	for i, arg := range args {
		source := fmt.Sprintf("--cfg #%d", i+1)
		a, err := assign.Parse(arg)
		if err == nil {
			a.Source = source
			err = assign.Apply(p, a)
		} else {
			err = &diag.Error{Code: diag.CodeSyntax, Source: source, Msg: err.Error()}
		}
		errs = append(errs, diag.All(err)...)
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
