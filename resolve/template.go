package resolve

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/protocol"
)

var templateRef = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}`)

// render renders a command template with a tool context: {{tool}} and
// {{context}} become JSON, {{tool.name}}, {{context.root}} and other
// scalars their raw text, objects and arrays JSON. Each word is rendered on
// its own, so a value never splits into several arguments. With a shell,
// the words are joined into one line with every rendered value quoted, and
// run by /bin/sh -c.
func render(c config.Command, data map[string]any) (program string, args []string, err error) {
	words := append([]string{c.Program}, c.Args...)
	out := make([]string, len(words))
	for i, w := range words {
		if out[i], err = renderWord(w, data, c.Shell); err != nil {
			return "", nil, err
		}
	}
	if c.Shell {
		return "/bin/sh", []string{"-c", strings.Join(out, " ")}, nil
	}
	return out[0], out[1:], nil
}

func renderWord(w string, data map[string]any, quote bool) (string, error) {
	var err error
	s := templateRef.ReplaceAllStringFunc(w, func(m string) string {
		ref := templateRef.FindStringSubmatch(m)[1]
		v, ok := lookup(data, ref)
		if !ok {
			if err == nil {
				hint := ""
				if s := suggest.Closest(ref, refs(data, "")); s != "" {
					hint = "; did you mean {{" + s + "}}?"
				}
				err = fmt.Errorf("unknown template value {{%s}}%s", ref, hint)
			}
			return m
		}
		text := scalarText(v)
		if quote {
			text = shellQuote(text)
		}
		return text
	})
	return s, err
}

// lookup finds a dotted reference in the context data.
func lookup(data map[string]any, ref string) (any, bool) {
	var cur any = data
	for _, k := range strings.Split(ref, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// refs lists the references the data offers, for suggestions.
func refs(v any, prefix string) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k, x := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, p)
		out = append(out, refs(x, p)...)
	}
	sort.Strings(out)
	return out
}

// scalarText is a value's text in a command: strings raw, the rest JSON.
func scalarText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// shellQuote quotes s for /bin/sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Argv returns the program and arguments that run the call with the tool
// context pc: for a JP tool its command rendered with pc, for a --describe
// tool its executable with args, the call's arguments as given, as one
// argument. A relative program path is relative to the call's Root.
func (c Call) Argv(pc protocol.Context, args json.RawMessage) ([]string, error) {
	switch c.Protocol {
	case ProtocolJP:
		program, rest, err := render(c.Command, pc.Value())
		if err != nil {
			return nil, err
		}
		if strings.ContainsRune(program, '/') && !filepath.IsAbs(program) {
			program = filepath.Join(c.Root, program)
		}
		return append([]string{program}, rest...), nil
	case ProtocolDescribe:
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		return []string{c.Path, string(args)}, nil
	}
	return nil, fmt.Errorf("a %s tool is not run from a command", c.Protocol)
}
