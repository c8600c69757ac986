package resolve

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// Choice is why a tool is in a selected catalog, or out of it, and how
// it loads.
type Choice struct {
	In bool
	// Set is the tool set selected; "" selects every tool.
	Set string
	// Why says which pattern put the tool in or left it out.
	Why string
	// Load is "deferred" or "always"; LoadFrom says which setting
	// decided it (tools.x.load, mcp_servers.s.load, toolsets.s.load,
	// tools.'*'.load, or the default).
	Load     config.LoadMode
	LoadFrom string
}

// Choose says whether the tool set named set holds d, and how d loads:
// its own load, else its server's, else that of the set that holds it,
// else that of tools.'*', else always.
func Choose(c config.Config, set string, d Definition) Choice {
	ch := Choice{In: true, Set: set, Why: "no tool set is selected: every tool"}
	var setLoad config.LoadMode
	var setFrom string
	if set != "" {
		m := holds(c.Toolsets, set, d.Name, FullSource(d), nil)
		ch.In, ch.Why = m.In, m.Why
		setLoad, setFrom = m.Load, m.LoadFrom
	}
	ch.Load, ch.LoadFrom = config.LoadAlways, "the default"
	switch {
	case c.Tools[d.Name].Load != "":
		ch.Load, ch.LoadFrom = c.Tools[d.Name].Load, partial.Path{"tools", d.Name, "load"}.String()
	case d.Exec.Kind == ExecMCP && c.MCPServers[d.Exec.Server].Load != "":
		ch.Load, ch.LoadFrom = c.MCPServers[d.Exec.Server].Load, partial.Path{"mcp_servers", d.Exec.Server, "load"}.String()
	case setLoad != "":
		ch.Load, ch.LoadFrom = setLoad, partial.Path{"toolsets", setFrom, "load"}.String()
	case c.Tools[config.EveryTool].Load != "":
		ch.Load, ch.LoadFrom = c.Tools[config.EveryTool].Load, partial.Path{"tools", config.EveryTool, "load"}.String()
	}
	return ch
}

// Select returns the catalog of the tools that the tool set named set
// holds ("" holds every tool), each with its load decided (see
// [Choose]), in a new catalog with its own fingerprint. A set that the
// config does not define is an error. A selection that changes no tool
// (every tool, as it is) shares c's Tools, so that a large catalog is not
// held twice: read a catalog's tools, never change them in place
// (slices.Clone them first).
func (c *Catalog) Select(cfg config.Config, set string) (*Catalog, error) {
	if _, ok := cfg.Toolsets[set]; set != "" && !ok {
		hint := "define it: [toolsets." + set + "] tools = [...]"
		if len(cfg.Toolsets) > 0 {
			hint = setNames(cfg.Toolsets)
		}
		return nil, &diag.Error{Code: diag.CodeNotFound, Path: partial.Path{"toolset"}, Msg: fmt.Sprintf("no tool set named %q", set), Hint: hint}
	}
	// The tools are copied from the first one the selection changes: a
	// selection of every tool as it is (no tool set, nothing deferred)
	// shares c's, which nothing changes once made.
	var tools []Definition
	for i, d := range c.Tools {
		ch := Choose(cfg, set, d)
		var load config.LoadMode
		if ch.Load == config.LoadDeferred {
			load = config.LoadDeferred
		}
		if tools == nil && ch.In && d.Load == load {
			continue
		}
		if tools == nil {
			tools = append(make([]Definition, 0, len(c.Tools)), c.Tools[:i]...)
		}
		if ch.In {
			d.Load = load
			tools = append(tools, d)
		}
	}
	if tools == nil && made(c.Tools) {
		return &Catalog{Tools: c.Tools, Fingerprint: fingerprint(c.Tools), Warnings: c.Warnings, Started: c.Started}, nil
	}
	if tools == nil {
		tools = slices.Clone(c.Tools)
	}
	out := newCatalog(tools)
	out.Warnings, out.Started = c.Warnings, c.Started
	return out, nil
}

// made reports whether tools are as newCatalog leaves them: in the order
// of their names, with options and questions.
func made(tools []Definition) bool {
	for i, d := range tools {
		if d.Options == nil || d.Questions == nil || i > 0 && tools[i-1].Name >= d.Name {
			return false
		}
	}
	return len(tools) > 0
}

func setNames(ts config.Toolsets) string {
	s := "the sets: "
	for i, n := range sortedKeys(ts) {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// FullSource is where d comes from with the tool's name there always
// written: mcp.<server>.<tool>, local.<tool>, builtin.<tool>. Tool-set
// patterns match it (mcp.github.*, local.*) as well as the name.
func FullSource(d Definition) string {
	var src config.Source
	switch d.Exec.Kind {
	case ExecMCP:
		src = config.Source{Kind: config.SourceMCP, Server: d.Exec.Server, Tool: d.Exec.Tool}
	case ExecJP, ExecDescribe:
		src = config.Source{Kind: config.SourceLocal, Tool: cmp.Or(d.Exec.Tool, d.Name)}
	case ExecBuiltin:
		src = config.Source{Kind: config.SourceBuiltin, Tool: cmp.Or(d.Exec.Tool, d.Name)}
	default:
		return d.Source
	}
	return src.String()
}

// membership is whether a tool set holds a tool, and why.
type membership struct {
	In bool
	// Why says which pattern put the tool in or left it out, and through
	// which included sets.
	Why string
	// Load is the load the set gives the tool ("" when no set on the way
	// sets one); LoadFrom names the set whose load that is.
	Load     config.LoadMode
	LoadFrom string
}

// holds says whether the set named set of ts holds the tool named name
// whose source is source: a pattern of its tools, or a set it includes,
// holds it, and no pattern of its exclude matches it. The sets must be
// valid (see config.Config.Validate); an include that leads back is not
// followed.
func holds(ts config.Toolsets, set, name, source string, seen []string) membership {
	s, ok := ts[set]
	if !ok || slices.Contains(seen, set) {
		return membership{Why: fmt.Sprintf("no tool set %q", set)}
	}
	seen = append(seen, set)
	for _, p := range s.Exclude {
		if config.Match(p, name, source) {
			return membership{Why: fmt.Sprintf("left out by %s's exclude %q", set, p)}
		}
	}
	for _, p := range s.Tools {
		if config.Match(p, name, source) {
			return membership{In: true, Why: fmt.Sprintf("%s's tools pattern %q", set, p), Load: s.Load, LoadFrom: set}
		}
	}
	for _, inc := range s.Include {
		if m := holds(ts, inc, name, source, seen); m.In {
			m.Why = fmt.Sprintf("%s includes %s: %s", set, inc, m.Why)
			if m.Load == "" && s.Load != "" {
				m.Load, m.LoadFrom = s.Load, set
			}
			return m
		}
	}
	why := fmt.Sprintf("no pattern of %s's tools matches", set)
	if len(s.Include) > 0 {
		why += ", nor does a set it includes (" + strings.Join(s.Include, ", ") + ")"
	}
	return membership{Why: why}
}
