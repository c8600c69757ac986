package cli

import (
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
)

type schemaCmd struct{}

func (c *schemaCmd) Run(e *env) error {
	b, err := partial.JSONSchema[config.Partial]("strata configuration")
	if err != nil {
		return err
	}
	_, err = e.Stdout.Write(append(b, '\n'))
	return err
}
