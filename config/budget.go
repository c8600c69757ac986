package config

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// LoadMode says when a model is given a tool's definition: with every
// request (always), or only once it finds the tool with a search
// (deferred).
type LoadMode string

// Load modes.
const (
	LoadAlways   LoadMode = "always"   // the definition is in every request (the default)
	LoadDeferred LoadMode = "deferred" // found with a search first; see package export
)

var enumLoadMode = []string{"always", "deferred"}

// EnumValues lists the load modes.
func (LoadMode) EnumValues() []string { return slices.Clone(enumLoadMode) }

// UnmarshalText reads a load mode.
func (m *LoadMode) UnmarshalText(b []byte) error {
	if err := readEnum(string(b), m, enumLoadMode, "load mode"); err != nil {
		return &diag.Error{Code: diag.CodeBadValue, Msg: err.Error(), Hint: didYouMean(string(b), enumLoadMode)}
	}
	return nil
}

// MarshalText writes a load mode.
func (m LoadMode) MarshalText() ([]byte, error) { return []byte(m), nil }

// Budget is what the tool definitions a model is given may cost: a number
// of tokens for the whole catalog, and the limits of each provider's
// export.
type Budget struct {
	// Tokens is the most the definitions a request carries should cost, in
	// o200k_base tokens; 0 sets no budget. Over it, resolve warns.
	Tokens    int          `toml:"tokens"`
	OpenAI    ExportLimits `toml:"openai"`
	Anthropic ExportLimits `toml:"anthropic"`
	MCP       ExportLimits `toml:"mcp"`
}

// ExportLimits are what a provider takes in one request.
type ExportLimits struct {
	// Tools is the most tools one request may carry; 0 is the
	// provider's own limit (export.DefaultOpenAITools for OpenAI, none for
	// Anthropic and MCP).
	Tools int `toml:"tools"`
	// NameLength is the longest tool name the provider takes; 0 is the
	// format's own rule (64 for OpenAI and Anthropic, 128 for MCP).
	NameLength int `toml:"name_length"`
	// Rename, when true, gives a tool whose name the provider refuses a
	// name it takes (the same on every run, shown in a warning) rather
	// than leaving the tool out.
	Rename bool `toml:"rename"`
}

// Toolsets are named sets of tools, by name.
type Toolsets map[string]Toolset

// Toolset is a named set of tools: the tools its patterns match, those of
// the sets it includes, less those its exclude patterns match.
type Toolset struct {
	// Tools are patterns over tool names and sources: git_*, mcp.github.*,
	// local.*. * matches any run of characters, ? one; a pattern matches a
	// tool when it matches its name or its source.
	Tools []string `toml:"tools"`
	// Include names other sets whose tools belong to this one.
	Include []string `toml:"include"`
	// Exclude are patterns, as Tools, of tools left out of the set, even
	// those an included set brings.
	Exclude []string `toml:"exclude"`
	// Load is how the set's tools load when they set none themselves
	// (nor their server).
	Load LoadMode `toml:"load"`
	// Clients are patterns over the names MCP clients give themselves
	// (clientInfo.name): strata serve gives a client that matches this set.
	Clients []string `toml:"clients"`
}

// Match reports whether pattern matches a tool named name whose source is
// source (see [Toolset]): the patterns of tool sets and of policies'
// tool lists.
func Match(pattern, name, source string) bool {
	if ok, _ := path.Match(pattern, name); ok {
		return true
	}
	ok, _ := path.Match(pattern, source)
	return ok
}

// validatePattern checks a pattern of a set.
func validatePattern(p string) error {
	if p == "" {
		return fmt.Errorf("an empty pattern matches no tool")
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("%q is not a pattern: %v", p, err)
	}
	return nil
}

// validate checks the sets: patterns that parse, included sets that exist
// and do not include themselves, and the set the run selects.
func (ts Toolsets) validate(mount partial.Path, selected string) diag.Errors {
	var errs diag.Errors
	names := slices.Sorted(maps.Keys(ts))
	for _, name := range names {
		s := ts[name]
		p := mount.Append("toolsets", name)
		for key, list := range map[string][]string{"tools": s.Tools, "exclude": s.Exclude, "clients": s.Clients} {
			for i, pat := range list {
				if err := validatePattern(pat); err != nil {
					errs = append(errs, &diag.Error{Code: diag.CodeSyntax, Path: p.Append(key, fmt.Sprint(i)), Msg: err.Error(), Hint: "* matches any run of characters, ? one, [abc] one of them"})
				}
			}
		}
		for i, inc := range s.Include {
			if _, ok := ts[inc]; !ok {
				errs = append(errs, &diag.Error{Code: diag.CodeNotFound, Path: p.Append("include", fmt.Sprint(i)), Msg: fmt.Sprintf("no tool set named %q", inc), Hint: setHint(inc, names, mount)})
			}
		}
		if cycle := ts.cycle(name, nil); cycle != nil {
			errs = append(errs, &diag.Error{Code: diag.CodeInvalid, Path: p.Append("include"), Msg: "the set includes itself: " + strings.Join(cycle, " -> "), Hint: "remove one of these includes"})
		}
	}
	if selected != "" {
		if _, ok := ts[selected]; !ok {
			errs = append(errs, &diag.Error{Code: diag.CodeNotFound, Path: mount.Append("toolset"), Msg: fmt.Sprintf("no tool set named %q", selected), Hint: setHint(selected, names, mount)})
		}
	}
	return errs
}

func setHint(name string, names []string, mount partial.Path) string {
	if s := didYouMean(name, names); s != "" {
		return s
	}
	if len(names) == 0 {
		return "define it: [" + mount.Append("toolsets", name).String() + "] tools = [...]"
	}
	return "the sets: " + strings.Join(names, ", ")
}

// cycle returns the path of includes that leads from name back to
// itself, or nil.
func (ts Toolsets) cycle(name string, seen []string) []string {
	if slices.Contains(seen, name) {
		if seen[0] == name {
			return append(seen, name)
		}
		return nil // a cycle not through the first set: reported at its own
	}
	seen = append(seen, name)
	for _, inc := range ts[name].Include {
		if c := ts.cycle(inc, slices.Clone(seen)); c != nil {
			return c
		}
	}
	return nil
}

// validate checks that counts are not negative.
func (b Budget) validate(p partial.Path) diag.Errors {
	var errs diag.Errors
	if b.Tokens < 0 {
		errs = append(errs, &diag.Error{Code: diag.CodeBadValue, Path: p.Append("tokens"), Msg: "a budget of tokens is 0 (none) or more", Hint: "remove it to set no budget"})
	}
	for _, f := range []string{"openai", "anthropic", "mcp"} {
		l := map[string]ExportLimits{"openai": b.OpenAI, "anthropic": b.Anthropic, "mcp": b.MCP}[f]
		if l.Tools < 0 {
			errs = append(errs, &diag.Error{Code: diag.CodeBadValue, Path: p.Append(f, "tools"), Msg: "a number of tools is 0 (the provider's limit) or more"})
		}
		if l.NameLength < 0 {
			errs = append(errs, &diag.Error{Code: diag.CodeBadValue, Path: p.Append(f, "name_length"), Msg: "a name length is 0 (the format's own) or more"})
		}
	}
	return errs
}
