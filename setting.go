package strata

import (
	"path/filepath"

	"github.com/kballard/go-shellquote"

	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/internal/userdir"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// serverSetting says what to write to give key of the MCP server name
// the value, for the file that configures the server (the layer that
// set its command or url last):
//
//   - strata's own TOML file, and Codex's config.toml, which has the key
//     too: `key = value under [mcp_servers.name] in FILE`;
//   - strata's own JSON or YAML file: `mcp_servers.name.key: value in
//     FILE`;
//   - another client's file (Claude Desktop's, Claude Code's, Cursor's,
//     VS Code's), which has no such key: the override for one run
//     (--cfg mcp_servers.name.key=value, strata's flag; a host's own
//     override flag), and where to keep it: the user file, or the
//     workspace's when it is trusted;
//   - a variable or an override: the override.
func (w *engine) serverSetting(name, key, value string) string {
	path := w.s.Mount.Append("mcp_servers", name)
	full := path.Append(key)
	override := w.overrideFlag()
	if override != "" {
		override += " " + shellquote.Join(tomltext.Path(full)+"="+value)
	}
	table := key + " = " + value + " under [" + tomltext.Path(path) + "]"
	layer := w.layerOf(path)
	if key == "" {
		return w.serverPlace(name, layer)
	}
	switch {
	case layer == nil || layer.Kind != load.KindUser && layer.Kind != load.KindWorkspace && layer.Kind != load.KindDirectory && layer.Kind != load.KindCfg || layer.Doc == nil:
		if override != "" {
			return override
		}
		return table + " in a layer"
	case layer.Client == "" || layer.Client == "codex":
		if layer.Doc.Format() == partial.TOML {
			return table + " in " + layer.Name
		}
		return tomltext.Path(full) + ": " + value + " in " + layer.Name
	}
	keep := table + " in a layer of " + w.s.Name + "'s"
	if dir := userdir.Config(w.s.Name, userdir.Getenv(w.environ)); dir != "" {
		keep = table + " in your " + filepath.Join(dir, "config.toml")
		if w.trusted && w.view.root != "" {
			keep += " or the workspace's " + filepath.Join(w.view.root, "."+w.s.Name, "config.toml")
		}
	}
	has := layer.Name + " has no " + key
	if override == "" {
		return keep + " (" + has + ")"
	}
	return override + " for one run (" + has + "), or for good " + keep
}

// serverPlace says where the MCP server name is configured, in layer:
// "under [mcp_servers.fs] in .strata/config.toml", "of mcpServers.fs in
// .mcp.json" (another client's file, by that client's key).
func (w *engine) serverPlace(name string, layer *layerInfo) string {
	path := w.s.Mount.Append("mcp_servers", name)
	switch {
	case layer == nil || layer.Doc == nil:
		return "under [" + tomltext.Path(path) + "]"
	case layer.Client == "vscode":
		return "of " + tomltext.Path(partial.Path{"servers", name}) + " in " + layer.Name
	case layer.Client != "" && layer.Client != "codex":
		return "of " + tomltext.Path(partial.Path{"mcpServers", name}) + " in " + layer.Name
	case layer.Doc.Format() == partial.TOML:
		return "under [" + tomltext.Path(path) + "] in " + layer.Name
	}
	return "of " + tomltext.Path(path) + " in " + layer.Name
}

// overrideFlag is the flag that gives an override for one run: strata's
// --cfg, or the host's own (see [Overrides]); "" when there is none.
func (w *engine) overrideFlag() string {
	switch {
	case w.s.OverrideFlag != "":
		return w.s.OverrideFlag
	case w.s.Name == "strata":
		return "--cfg"
	}
	return ""
}

// layerOf returns the layer that configures the table at path last (its
// command or its url), or nil.
func (w *engine) layerOf(path partial.Path) *layerInfo {
	var name string
	for _, key := range []string{"command", "url"} {
		ex, err := w.view.explain(path.Append(key).String())
		if err != nil {
			continue
		}
		for _, s := range ex.Steps {
			if s.Wins && !s.Dropped {
				name = s.Name
			}
		}
		if name != "" {
			break
		}
	}
	if name == "" {
		return nil
	}
	for i := len(w.view.layers) - 1; i >= 0; i-- {
		if l := &w.view.layers[i]; l.Name == name && !l.Dropped {
			return l
		}
	}
	return nil
}
