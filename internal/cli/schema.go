package cli

import (
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
)

type schemaCmd struct{}

func (c *schemaCmd) Run(e *env) error {
	b, err := codec.JSONSchema[config.Partial]("strata configuration")
	if err != nil {
		return err
	}
	_, err = e.Stdout.Write(append(b, '\n'))
	return err
}
