package strata

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/lock"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// ToolExplanation says where every field of one tool's final definition
// came from: what the tool said about itself, and where that answer came
// from; each config key that changed it, layer by layer; the tightenings
// of its schema and the {{description}} expansion; what decided that it is
// in the catalog (the lock, the tool set) and how it loads.
type ToolExplanation struct {
	// Definition is the tool's final definition: what the model sees
	// (when the lock holds the tool back, what it would see).
	Definition resolve.Definition
	// Source is the key of the lock's entry: mcp_servers.<server>,
	// tools.<name>, discover.dirs or builtin.
	Source string
	// Discovered is what the tool said about itself, the base the config
	// changes; nil when the config defines the tool whole (its parameters
	// are its schema).
	Discovered *resolve.Discovered
	// Origin is where that answer came from: the program or server, and
	// the cache entry it was read from, if any.
	Origin resolve.Origin
	// Keys are the config keys that say something of the tool, each with
	// every layer that set it, lowest first: the tool's own keys, then the
	// keys of the '*' entry it inherits.
	Keys []load.Explanation
	// Expanded reports that the config's description holds
	// {{description}}, replaced by the discovered text.
	Expanded bool
	// Tightened are the config's overrides of the discovered schema, as
	// key paths under the tool (parameters.unit.enum): each narrowed it,
	// or it would not have resolved.
	Tightened []string
	// Lock is what the lock says of the tool.
	Lock ToolLock
	// Choice says whether the run's tool set holds the tool, and how it
	// loads (see [resolve.Choose]).
	Choice resolve.Choice
}

// ToolLock is what the lock says of one tool.
type ToolLock struct {
	// Path is the lock that applies; "" when none does.
	Path string
	// Policy is the lock policy.
	Policy config.LockPolicy
	// Locked reports that the lock has an entry for the tool.
	Locked bool
	// Change is the tool's change since the lock was written; nil when it
	// is as locked (or no lock applies).
	Change *lock.Change
}

// Held reports whether the lock holds the tool back: it is not in the
// catalog.
func (l ToolLock) Held() bool {
	return l.Change != nil && l.Change.Held() && l.Policy == config.LockHold
}

// ExplainTool explains the tool named name of the catalog (or one the
// lock holds back): every field of its final definition and where it came
// from. It resolves the catalog first.
func (w *engine) ExplainTool(ctx context.Context, name string) (ToolExplanation, error) {
	full, err := w.resolveAll(ctx)
	if full == nil {
		return ToolExplanation{}, err
	}
	d, ok := full.Tool(name)
	if !ok {
		e := &diag.Error{Code: diag.CodeNotFound, Path: partial.Path(w.s.Mount).Append("tools", name), Msg: "no tool of the catalog has this name"}
		var names []string
		for _, t := range full.Tools {
			names = append(names, t.Name)
		}
		if c := suggest.Closest(name, names); c != "" {
			e.Hint = "did you mean " + c + "?"
		} else if err != nil {
			e.Hint = "it may be among the tools that did not resolve: " + err.Error()
		}
		return ToolExplanation{}, e
	}
	w.mu.Lock()
	found := w.found
	w.mu.Unlock()
	ex := ToolExplanation{Definition: d, Source: lock.SourceOf(d)}
	ex.Discovered, ex.Origin = discoveredOf(d, found)
	own := w.model.Tools[name]
	ex.Expanded = ex.Discovered != nil && strings.Contains(own.Description, "{{description}}")
	if ex.Discovered != nil {
		ex.Tightened = leaves(own.Parameters)
	}
	keys := w.toolKeys(name, own)
	if _, configured := w.model.Tools[name]; d.Exec.Kind == resolve.ExecMCP && !configured {
		// What made the server's tool one of the catalog's, and named it.
		keys = append(keys, w.key(partial.Path{"mcp_servers", d.Exec.Server, "expose"}.String()))
		switch {
		case d.Name == d.Exec.Tool:
		case w.model.MCPServers[d.Exec.Server].ToolNames != "":
			keys = append(keys, w.key(partial.Path{"mcp_servers", d.Exec.Server, "tool_names"}.String()))
		case w.model.ToolNames != "":
			keys = append(keys, w.key("tool_names"))
		}
	}
	for _, key := range keys {
		e, err := w.Explain(key)
		if err != nil {
			return ToolExplanation{}, err
		}
		ex.Keys = append(ex.Keys, e)
	}
	st, _ := w.Lock(ctx)
	ex.Lock = ToolLock{Path: st.Path, Policy: st.Policy}
	if st.Path != "" {
		if f, err := w.readLock(ctx, st.Path); err == nil && f != nil {
			_, ex.Lock.Locked = f.Tool(name)
		}
	}
	for _, c := range st.Changes {
		if c.Tool == name {
			ex.Lock.Change = &c
		}
	}
	ex.Choice = resolve.Choose(w.model, w.Toolset(), d)
	return ex, nil
}

// discoveredOf is the answer a definition was built on, and where it came
// from.
func discoveredOf(d resolve.Definition, f resolve.Found) (*resolve.Discovered, resolve.Origin) {
	var base resolve.Discovered
	var ok bool
	origin := f.Origins[d.Exec.Key]
	switch d.Exec.Kind {
	case resolve.ExecMCP:
		base, ok = f.Servers[d.Exec.Server][d.Exec.Tool]
	case resolve.ExecDescribe:
		var dt resolve.Described
		dt, ok = f.Described[d.Exec.Tool]
		base, origin = dt.Discovered, f.Origins[dt.Path]
	case resolve.ExecJP:
		base, ok = f.Schemas[d.Name]
	case resolve.ExecBuiltin:
		base, ok = f.Builtins[d.Exec.Tool]
		origin = resolve.Origin{Program: "the host (builtin)"}
	}
	if !ok {
		return nil, resolve.Origin{}
	}
	return &base, origin
}

// toolKeys are the config keys (at the host's mount) that say something
// of the tool: its own entry's leaves, then those of the '*' entry it
// inherits and does not set itself.
func (w *engine) toolKeys(name string, own config.Tool) []string {
	var keys []string
	mine := leavesOf(own)
	for _, p := range mine {
		keys = append(keys, w.key(partial.Path{"tools", name}.Append(p...).String()))
	}
	set := map[string]bool{}
	for _, p := range mine {
		set[p.String()] = true
	}
	for _, p := range leavesOf(w.model.Tools[config.EveryTool]) {
		if !set[p.String()] {
			keys = append(keys, w.key(partial.Path{"tools", config.EveryTool}.Append(p...).String()))
		}
	}
	return keys
}

// leavesOf are the key paths of what a tool's config sets: its values,
// and the tables of parameters, options and questions down to their
// values (an array is one value).
func leavesOf(t config.Tool) []partial.Path {
	b, err := codec.Encode(t, partial.JSON)
	if err != nil {
		return nil
	}
	var v map[string]any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	var out []partial.Path
	var walk func(p partial.Path, v any)
	walk = func(p partial.Path, v any) {
		m, ok := v.(map[string]any)
		if len(p) == 0 && ok && len(m) == 0 {
			return
		}
		if !ok || len(m) == 0 || len(p) == 1 && (p[0] == "enable" || p[0] == "command" || p[0] == "source") {
			out = append(out, slices.Clone(p))
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			walk(p.Append(k), m[k])
		}
	}
	walk(nil, v)
	return out
}

// leaves are the key paths of parameter overrides: parameters.<name>...
func leaves(params map[string]config.Parameter) []string {
	var out []string
	for _, p := range leavesOf(config.Tool{Parameters: params}) {
		out = append(out, p.String())
	}
	return out
}
