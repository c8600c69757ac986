package call

import (
	"encoding/json"
	"fmt"

	"github.com/strata-config/strata/internal/command"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// Argv returns the program and arguments that run a local tool with the
// tool context pc: for a JP tool its command rendered with pc, for a
// --describe tool its executable with the call's arguments, as given, as
// one argument. A relative program path is relative to the workspace
// root.
func Argv(e resolve.Exec, pc protocol.Context, args json.RawMessage) ([]string, error) {
	switch e.Kind {
	case resolve.ExecJP:
		program, rest, err := command.Render(append([]string{e.Command.Program}, e.Command.Args...), e.Command.Shell, pc.Value())
		if err != nil {
			return nil, err
		}
		return append([]string{command.Absolute(program, e.Root)}, rest...), nil
	case resolve.ExecDescribe:
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return []string{e.Path, string(args)}, nil
	}
	return nil, fmt.Errorf("a %s tool is not run from a command", e.Kind)
}
