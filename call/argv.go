package call

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/strata-config/strata/internal/command"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// commandLine returns the program and arguments that run a local tool with the
// tool context pc: for a JP tool its command rendered with pc, for a
// --describe tool its executable with the call's arguments, as given, as
// one argument (a JSON object, which starts with "{"). A relative program
// path is relative to the workspace root.
//
// A model's value (an argument, or an answer) that a JP command would
// render as an argument of its own starting with "-", which the program
// would read as an option, is refused with an [*Refusal] naming the tool
// and the parameter, unless a literal -- comes before it in the command
// or the parameter allows it (allow_dash, [resolve.Exec].AllowDash).
func commandLine(e resolve.Exec, pc protocol.Context, args json.RawMessage) ([]string, error) {
	switch e.Kind {
	case resolve.ExecJP:
		program, rest, err := command.Render(append([]string{e.Command.Program}, e.Command.Args...), e.Command.Shell, pc.Value(), e.DashAllowed)
		var de *command.DashError
		if errors.As(err, &de) {
			return nil, dashError(e, de)
		}
		if err != nil {
			return nil, err
		}
		return append([]string{command.Absolute(program, e.Root)}, rest...), nil
	case resolve.ExecDescribe:
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if args[0] != '{' {
			// Call gives a compact object; anything else could be read
			// as an option.
			return nil, fmt.Errorf("the arguments of a --describe tool must be one JSON object, starting with {")
		}
		return []string{e.Path, string(args)}, nil
	}
	return nil, fmt.Errorf("a %s tool is not run from a command", e.Kind)
}

// dashError is the refusal of a model's value that would be an option.
func dashError(e resolve.Exec, de *command.DashError) *Refusal {
	tool := strings.TrimPrefix(e.Key, "tools.")
	msg := fmt.Sprintf("%s starts with \"-\" and would be an argument of its own, which the program reads as an option", quote(de.Value))
	if id, ok := strings.CutPrefix(de.Ref, "tool.answers."); ok {
		return &Refusal{Tool: tool, Msg: "refused: the answer to " + id + ", " + msg,
			Hint: "to pass such values, the tool's command writes -- before it"}
	}
	param, _ := strings.CutPrefix(de.Ref, "tool.arguments.")
	key := partial.Path{"parameters"}
	for i, k := range strings.Split(param, ".") {
		if i > 0 {
			key = key.Append("properties")
		}
		key = key.Append(k)
	}
	return &Refusal{Tool: tool, Msg: "refused", Problems: []Problem{{Path: jsonPath(param), Msg: msg}},
		Hint: fmt.Sprintf("to pass such values, the tool's command writes -- before it, or [%s.%s] sets allow_dash = true", e.Key, key)}
}

// jsonPath writes a dotted parameter path (a.b) as a JSONPath ($.a.b).
func jsonPath(dotted string) string {
	var b strings.Builder
	b.WriteByte('$')
	for _, k := range strings.Split(dotted, ".") {
		if k == "" || strings.ContainsFunc(k, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) || k[0] >= '0' && k[0] <= '9' {
			b.WriteString("[" + strconv.Quote(k) + "]")
		} else {
			b.WriteString("." + k)
		}
	}
	return b.String()
}

// quote quotes a value for a message, at most 100 bytes of it.
func quote(s string) string {
	if len(s) > 100 {
		s = strings.ToValidUTF8(s[:100], "") + "…"
	}
	return strconv.Quote(s)
}
