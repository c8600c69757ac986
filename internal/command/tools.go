package command

import (
	"errors"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// CheckTools runs [Check] on the command template of each tool of c that
// runs one (every tool but a builtin or an MCP server's), before any call:
// problems name the key path of its command under mount
// (assistant.tools.grep.command), sorted by tool name. The check lives
// here, with the runtime that renders commands, not in config.Validate: a
// host that only loads configuration runs no command and links no shell
// parser.
func CheckTools(c config.Config, mount partial.Path) error {
	var errs diag.Errors
	var words []string // one for every tool: Check keeps none
	for _, name := range c.Tools.Names() {
		t := c.Tools[name]
		if name == config.EveryTool || t.Source.Kind == config.SourceBuiltin || t.Source.Kind == config.SourceMCP {
			continue
		}
		words = append(append(words[:0], t.Command.Program), t.Command.Args...)
		if err := Check(words, t.Command.Shell); err != nil {
			e := &diag.Error{Code: diag.CodeBadValue, Path: mount.Append("tools", name, "command"), Msg: err.Error()}
			var ce *Error
			if errors.As(err, &ce) {
				e.Msg, e.Hint = ce.Msg, ce.Hint
			}
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
