// Package config is strata's typed model of tool configuration: the
// resolved types ([Config], [Tool], [Parameter], [MCPServer], ...) and
// their partial twins ([Partial], [ToolPartial], ...), which are the layers
// that files, the environment and overrides produce.
//
// Layers are merged with package merge, compared with package delta, and
// turned into a Config with [Finalize]; [ToPartial] goes back. The model is
// also made to be mounted in a host application's own config: [Tools],
// [MCPServers] and their partial twins can be fields of a host's structs.
package config

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// EveryTool is the key of the tool entry that holds the settings every tool
// inherits: [tools.'*'].
const EveryTool = "*"

// Config is the resolved tool configuration.
type Config struct {
	Tools      Tools      `toml:"tools"`
	MCPServers MCPServers `toml:"mcp_servers"`
	Discover   Discover   `toml:"discover"`
	// Budget is what the definitions may cost, and the providers' limits.
	Budget Budget `toml:"budget"`
	// Toolsets are named sets of tools; Toolset names the one a run
	// gives the model ("" gives every tool).
	Toolsets Toolsets `toml:"toolsets"`
	Toolset  string   `toml:"toolset"`
	Lock     Lock     `toml:"lock"`
	// ToolNames is how the tools of every MCP server are named, for the
	// servers that say nothing of their own ([MCPServer].ToolNames);
	// "" is [BareNames]. See [Config.ToolNamesOf].
	ToolNames NameScheme `toml:"tool_names"`
}

// Tools are the configured tools by name; the entry named [EveryTool] ("*")
// holds what every tool inherits.
type Tools map[string]Tool

// MCPServers are the configured MCP servers by name.
type MCPServers map[string]MCPServer

// Tool is one tool's configuration. Zero fields inherit: the run, result
// and enable settings from the "*" entry, the rest from what the tool
// describes about itself.
type Tool struct {
	Source      Source               `toml:"source"`
	Command     Command              `toml:"command"`
	Enable      *Enable              `toml:"enable"`
	Summary     string               `toml:"summary"`
	Description string               `toml:"description"`
	Examples    string               `toml:"examples"`
	Run         RunRules             `toml:"run"`
	Result      ResultRules          `toml:"result"`
	Policy      *Policy              `toml:"policy"`
	Parameters  map[string]Parameter `toml:"parameters"`
	Options     map[string]any       `toml:"options"`
	Questions   map[string]Question  `toml:"questions"`
	Env         map[string]string    `toml:"env"`
	EnvVars     []string             `toml:"env_vars"`
	// Load is when a model is given the definition; "" inherits the
	// server's, then the tool set's, else always.
	Load LoadMode `toml:"load"`
	// DiscoverTimeoutSec bounds the tool's discovery: its command's answer
	// to the schema action, or the --describe answer of the executable of
	// a discovery directory whose file name (less its extension) is the
	// tool's name. 0 is the discovery directories' timeout
	// ([Discover].TimeoutSec), else the host's default (5 seconds).
	DiscoverTimeoutSec float64 `toml:"discover_timeout_sec"`
}

// Parameter overrides (or, for tools without discovery, defines) one
// parameter of a tool's input schema.
type Parameter struct {
	Type     Types `toml:"type"`
	Required *bool `toml:"required"`
	Default  any   `toml:"default"`
	Enum     []any `toml:"enum"`
	// The bounds of JSON Schema, each nil (or "") when not set: an
	// override may tighten the discovered ones, never loosen them.
	Minimum          *float64             `toml:"minimum"`
	Maximum          *float64             `toml:"maximum"`
	ExclusiveMinimum *float64             `toml:"exclusive_minimum"`
	ExclusiveMaximum *float64             `toml:"exclusive_maximum"`
	MultipleOf       *float64             `toml:"multiple_of"`
	MinLength        *int                 `toml:"min_length"`
	MaxLength        *int                 `toml:"max_length"`
	Pattern          string               `toml:"pattern"`
	Format           string               `toml:"format"`
	MinItems         *int                 `toml:"min_items"`
	MaxItems         *int                 `toml:"max_items"`
	UniqueItems      *bool                `toml:"unique_items"`
	Summary          string               `toml:"summary"`
	Description      string               `toml:"description"`
	Examples         []any                `toml:"examples"`
	Items            *Parameter           `toml:"items"`
	Properties       map[string]Parameter `toml:"properties"`
	// AllowDash lets the parameter's value start with "-" where a command
	// template renders it as an argument of its own, which the program
	// reads as an option; strata refuses such a value otherwise. It is
	// strata's, not the schema's: the model never sees it.
	AllowDash bool `toml:"allow_dash"`
	// Bounded is set where a policy layer bounds the parameter (package
	// policy): it is no key of a file.
	Bounded *Bounded `toml:"-"`
}

// Bounded says what a policy layer bounds of a parameter: the keys of
// the bounds it set (minimum, enum...), which stay where the tool's own
// schema is tighter already, and patterns that hold besides the
// parameter's own.
type Bounded struct {
	Keys     []string
	Patterns []string
	// Key is the policy's key of the parameter, At where it is, Reason
	// its reason.
	Key, At, Reason string
	// Ats is where the policy wrote each bound (file:line:column), by its
	// key, where known; see [Bounded.AtOf].
	Ats map[string]string
}

// Sets reports whether the policy set the bound of key.
func (b *Bounded) Sets(key string) bool { return b != nil && slices.Contains(b.Keys, key) }

// AtOf is where the bound key (maximum, enum, pattern) was written: its
// own line where known, else the parameter's ([Bounded].At).
func (b *Bounded) AtOf(key string) string {
	if b == nil {
		return ""
	}
	if at, ok := b.Ats[key]; ok {
		return at
	}
	return b.At
}

// Question configures one question a tool may ask while it runs.
type Question struct {
	Target Target `toml:"target" json:"target,omitempty"`
	// Answer, when set, is given without asking anyone.
	Answer any `toml:"answer" json:"answer,omitempty"`
}

// MCPServer is how to reach an MCP server: a program strata starts and
// talks to over stdio (Command), or a remote server it connects to over
// streamable HTTP, or the older HTTP+SSE transport where a server offers
// only that (URL). A server has one or the other.
//
// The settings that another client's file may fill from a variable or an
// input (command, args, env, cwd, url, headers) are each a
// [secret.String]: such a value prints as its reference
// ("<from ${env:GITHUB_TOKEN}>") wherever it is printed, and only the
// launch reads it.
type MCPServer struct {
	// Command, Args, Env, EnvVars and Cwd start a server over stdio.
	Command secret.String            `toml:"command"`
	Args    []secret.String          `toml:"args"`
	Env     map[string]secret.String `toml:"env"`
	// EnvVars are names of variables the server inherits from the host's
	// environment (Codex's env_vars), on top of the base set every program
	// strata starts receives; "*" inherits them all.
	EnvVars []string      `toml:"env_vars"`
	Cwd     secret.String `toml:"cwd"`
	// URL, Headers and BearerTokenEnvVar reach a remote server.
	URL     secret.String            `toml:"url"`
	Headers map[string]secret.String `toml:"headers"`
	// BearerTokenEnvVar names the variable of the host's environment whose
	// value is sent as "Authorization: Bearer <value>".
	BearerTokenEnvVar string `toml:"bearer_token_env_var"`
	// AllowHTTP lets URL be plain http to a host other than this machine,
	// where the token, the headers and every message travel in clear;
	// without it such a URL is an error. Loopback needs no permission.
	AllowHTTP bool `toml:"allow_http"`
	// InProcess marks a server the host application serves in its own
	// process (strata.InProcess registers it and sets this): strata
	// reaches it through the host's transport, and it has no command or
	// url, nor any setting of either.
	InProcess bool `toml:"in_process"`
	// OAuth configures the sign-in to a remote server that needs one
	// (strata login); nil when it sets nothing: a server that needs a
	// sign-in is signed in to by discovery without it. See
	// [MCPServer.SignIn].
	OAuth *OAuth `toml:"oauth"`
	// Enabled is false for a server that is configured but not used; nil
	// means true. See [MCPServer.IsEnabled].
	Enabled  *bool `toml:"enabled"`
	Optional bool  `toml:"optional"`
	// StartupTimeoutSec is the seconds to wait for the server to start;
	// 0 (no layer sets it) is the default of its launch:
	// [DefaultStartupTimeoutSec], or for a launcher that installs what it
	// runs [LauncherStartupTimeoutSec], [InstallStartupTimeoutSec] when it
	// installs first. It is left 0 rather than given one of them, so that
	// a config printed and read back keeps the launch's default.
	StartupTimeoutSec float64 `toml:"startup_timeout_sec"`
	ToolTimeoutSec    float64 `toml:"tool_timeout_sec"`
	Expose            Expose  `toml:"expose"`
	// EnabledTools and DisabledTools are Codex's allow and deny lists of the
	// server's tools; see [MCPServer.Allows].
	EnabledTools  ToolNames `toml:"enabled_tools"`
	DisabledTools ToolNames `toml:"disabled_tools"`
	// Load is when a model is given the definitions of the server's
	// tools, for those that set none themselves.
	Load LoadMode `toml:"load"`
	// Namespace, when set, is put before the server's resource URIs
	// ("<namespace>+<uri>": a URI scheme of its own) and prompt names
	// ("<namespace>.<name>") where strata serves them, so that two
	// servers' do not collide; strata serve takes it off again before a
	// request reaches the server. Without it they are served as the
	// server gives them (a tool's result links its resources by their
	// URIs).
	Namespace string `toml:"namespace"`
	// DisabledPrompts are prompts of the server that strata serve leaves
	// out, by the server's names for them.
	DisabledPrompts []string `toml:"disabled_prompts"`
	// PromptNames renames prompts of the server where strata serves
	// them: the server's name to the name served (taken as it is, without
	// the namespace).
	PromptNames map[string]string `toml:"prompt_names"`
	// ToolNames is how the server's tools are named in the catalog
	// ("{server}__{tool}"); "" is the config's tool_names, else
	// [BareNames]. Expose, EnabledTools and DisabledTools name the tools
	// as the server does.
	ToolNames NameScheme `toml:"tool_names"`
}

// OAuth is how strata signs in to a remote server (MCP authorization).
// Every field is optional: the authorization server is found from the
// server's answers, and strata registers itself there (a client ID
// metadata document when ClientMetadataURL is set and the server takes
// one, else dynamic registration) unless ClientID names a client
// registered beforehand.
type OAuth struct {
	// ClientID is a client registered with the authorization server
	// beforehand, used instead of registering one.
	ClientID string `toml:"client_id"`
	// ClientSecretEnvVar names the variable of the host's environment that
	// holds the secret of ClientID, for a confidential client.
	ClientSecretEnvVar string `toml:"client_secret_env_var"`
	// PrivateKeyFile is a PEM file holding the private key (EC P-256) that
	// ClientID authenticates with (private_key_jwt), instead of a secret.
	PrivateKeyFile string `toml:"private_key_file"`
	// ClientMetadataURL is the https URL of a client ID metadata document
	// that describes strata as a client, used as its client_id where the
	// authorization server takes such documents.
	ClientMetadataURL string `toml:"client_metadata_url"`
	// Scopes, when set, are the scopes asked for, instead of those the
	// server names.
	Scopes []string `toml:"scopes"`
	// Grant is how a token is obtained: "authorization_code" (the
	// default: a user signs in with a browser, strata login) or
	// "client_credentials" (a machine: ClientID with its secret or private
	// key, no browser and no strata login).
	Grant string `toml:"grant"`
	// CallbackPort is the loopback port the browser returns to after
	// sign-in; 0 takes a free one. A client registered beforehand may need
	// a fixed redirect URI: http://127.0.0.1:<port>/callback.
	CallbackPort int `toml:"callback_port"`
}

// Grants of [OAuth].Grant.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

// SignIn returns the server's sign-in settings: its oauth table, or none.
func (s MCPServer) SignIn() OAuth {
	if s.OAuth == nil {
		return OAuth{}
	}
	return *s.OAuth
}

// IsEnabled reports whether the server is used: its enabled setting, true
// when it has none.
func (s MCPServer) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// IsRemote reports whether the server is reached over HTTP (it has a URL)
// rather than started over stdio.
func (s MCPServer) IsRemote() bool { return !s.URL.Empty() }

// Default timeouts of an MCP server. A server whose startup_timeout_sec
// no layer sets (0) waits DefaultStartupTimeoutSec, or, when its command is
// a launcher that installs the package it runs (npx, npm exec, bunx, pnpm
// dlx, yarn dlx, uvx, uv tool run, pipx run, docker run, podman run),
// LauncherStartupTimeoutSec, and InstallStartupTimeoutSec when the launch
// will install first (npx: the package is not in its cache; the others:
// strata has not listed the server's tools before). Whatever the
// timeout, time npx spends installing is not counted: a start ends only
// once its install has.
const (
	DefaultStartupTimeoutSec  = 10
	LauncherStartupTimeoutSec = 60
	InstallStartupTimeoutSec  = 300
	DefaultToolTimeoutSec     = 60
)

// SetDefaults gives a new server the default tool timeout; its startup
// timeout stays 0, the default of its launch (see
// [DefaultStartupTimeoutSec]). (Its Expose is the zero one, the default:
// a configured server gives all its tools, as in Claude Code, Codex,
// Cursor and VS Code, unless expose, enabled_tools or disabled_tools
// narrow it.)
func (s *MCPServer) SetDefaults() {
	s.ToolTimeoutSec = DefaultToolTimeoutSec
}

// Discover lists where self-describing tools are found.
type Discover struct {
	// Dirs are directories whose executables answer --describe.
	Dirs []string `toml:"dirs"`
	// TimeoutSec bounds each discovery run of a local tool (an executable
	// of Dirs answering --describe, a command answering the schema
	// action); a tool's DiscoverTimeoutSec overrides it. 0 is the host's
	// default (5 seconds).
	TimeoutSec float64 `toml:"timeout_sec"`
}

// DiscoverTimeoutSec returns the seconds the discovery of tool name may
// take: its own discover_timeout_sec, else the discovery directories'
// timeout_sec; 0 when neither is set (the host's default applies).
func (c Config) DiscoverTimeoutSec(name string) float64 {
	if t, ok := c.Tools[name]; ok && name != EveryTool && t.DiscoverTimeoutSec > 0 {
		return t.DiscoverTimeoutSec
	}
	return c.Discover.TimeoutSec
}

// Default returns the library's defaults: every tool asks before running,
// hands its result over unattended, and is on and toggleable.
func Default() Config {
	return Config{Tools: Tools{EveryTool: {
		Run:    RunRules{{Mode: RunAsk}},
		Result: ResultRules{{Mode: ResultUnattended}},
		Enable: &Enable{State: boolPtr(true), AllowToggle: ToggleAny},
	}}}
}

// Names returns the names of the tools, sorted, without the "*" entry.
func (ts Tools) Names() []string {
	names := make([]string, 0, len(ts))
	for n := range ts {
		if n != EveryTool {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Effective returns tool name resolved against the "*" entry; ok is false
// when there is no such tool.
func (ts Tools) Effective(name string) (EffectiveTool, bool) {
	t, ok := ts[name]
	if !ok || name == EveryTool {
		return EffectiveTool{}, false
	}
	return EffectiveTool{Name: name, Tool: t, Inherited: ts[EveryTool]}, true
}

// EffectiveTool is a tool together with the settings it inherits. Its
// methods give the effective settings; Tool holds what the tool's own entry
// says.
type EffectiveTool struct {
	Name string
	// Tool is the tool's own entry.
	Tool Tool
	// Inherited is the [EveryTool] entry it inherits from.
	Inherited Tool
}

// Enable returns the tool's enable setting with both fields set: each
// from the tool's own entry, else inherited from the [EveryTool] entry,
// else on and toggleable by any directive.
func (t EffectiveTool) Enable() Enable {
	var own, inherited Enable
	if t.Tool.Enable != nil {
		own = *t.Tool.Enable
	}
	if t.Inherited.Enable != nil {
		inherited = *t.Inherited.Enable
	}
	state := true
	switch {
	case own.State != nil:
		state = *own.State
	case inherited.State != nil:
		state = *inherited.State
	}
	return Enable{State: &state, AllowToggle: first(own.AllowToggle, inherited.AllowToggle, ToggleAny)}
}

// Enabled reports whether the tool is offered to the model without a
// directive that turns it on.
func (t EffectiveTool) Enabled() bool { return t.Enable().On() }

// Summary returns the tool's summary, or its description when it has no
// summary.
func (t EffectiveTool) Summary() string {
	if t.Tool.Summary != "" {
		return t.Tool.Summary
	}
	summary, _ := Split(t.Tool.Description)
	return summary
}

// Answer returns the configured answer to question id.
func (t EffectiveTool) Answer(id string) (any, bool) {
	q, ok := t.Tool.Questions[id]
	if !ok || q.Answer == nil {
		return nil, false
	}
	return q.Answer, true
}

// IsLocal reports whether t runs as a local command: its source is local
// (or local.<tool>), or it has none but has a command.
func (t Tool) IsLocal() bool {
	return t.Source.Kind == SourceLocal || t.Source.Kind == "" && !t.Command.IsZero()
}

// DefinesSchema reports whether a local tool's parameters define its
// schema: when any parameter gives a type, the config is the schema, and
// the command is never asked for one (as in JP: asking a command that does
// not speak the schema action would run it for real). Parameters without
// types override what the command describes.
func (t Tool) DefinesSchema() bool {
	for _, p := range t.Parameters {
		if len(p.Type) > 0 {
			return true
		}
	}
	return false
}

// ServersInUse returns the names of the enabled MCP servers whose tools
// the catalog needs, sorted: those that enabled tools name as their
// source, and those that expose tools on their own.
func (c Config) ServersInUse() []string {
	wanted := map[string]bool{}
	for _, name := range c.Tools.Names() {
		t, _ := c.Tools.Effective(name)
		if t.Tool.Source.Kind == SourceMCP && t.Enabled() {
			wanted[t.Tool.Source.Server] = true
		}
	}
	for name, srv := range c.MCPServers {
		if !srv.Expose.None {
			wanted[name] = true
		}
	}
	out := make([]string, 0, len(wanted))
	for name := range wanted {
		if srv, ok := c.MCPServers[name]; ok && srv.IsEnabled() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func boolPtr(b bool) *bool { return &b }

func first[T comparable](vs ...T) T {
	var zero T
	for _, v := range vs {
		if v != zero {
			return v
		}
	}
	return zero
}

// Validate checks what the types alone cannot: the "*" entry holds only
// inheritable settings, commands belong to local tools, MCP sources name
// configured servers, and each server is either started (command) or
// reached (url) with the settings that fit (see [MCPServer]). Whether a
// command template renders safely (a model's value as the program, a
// value where no shell quoting keeps it data) is checked by the runtime
// that runs commands, when a workspace opens (strata.Open): a host that
// only loads configuration links no shell parser.
func (c Config) Validate() error { return c.ValidateAt(nil) }

// ValidateAt is [Config.Validate] for a model mounted at mount in a host's
// config: problems and hints name the host's key paths
// (assistant.tools.grep.source).
func (c Config) ValidateAt(mount partial.Path) error {
	var errs diag.Errors
	servers := make([]string, 0, len(c.MCPServers))
	for n := range c.MCPServers {
		servers = append(servers, n)
	}
	sort.Strings(servers)
	for _, name := range append([]string{EveryTool}, c.Tools.Names()...) {
		t, ok := c.Tools[name]
		if !ok {
			continue
		}
		p := mount.Append("tools", name)
		if name == EveryTool {
			for _, key := range t.setKeys() {
				if key != "run" && key != "result" && key != "policy" && key != "enable" && key != "load" {
					errs = append(errs, &diag.Error{Code: diag.CodeInvalid, Path: p.Append(key), Msg: "not allowed in the '*' defaults", Hint: "the '*' entry holds run, result, policy, enable and load; set " + key + " on each tool"})
				}
			}
			errs = append(errs, validatePolicy(t, p)...)
			continue
		}
		if !t.Command.IsZero() && t.Source.Kind != "" && t.Source.Kind != SourceLocal {
			errs = append(errs, &diag.Error{Code: diag.CodeInvalid, Path: p.Append("command"), Msg: kindName[t.Source.Kind] + " tool has no command", Hint: `remove the command, or set source = "local"`})
		}
		errs = append(errs, validatePolicy(t, p)...)
		if len(t.Parameters) > 0 {
			errs = append(errs, allowDash(t.Parameters, p.Append("parameters"), t.Command.IsZero())...)
		}
		if e := timeoutSec(t.DiscoverTimeoutSec, p, "discover_timeout_sec"); e != nil {
			errs = append(errs, e)
		}
		if t.Source.Kind == SourceMCP && !slices.Contains(servers, t.Source.Server) {
			hint := "add [" + mount.Append("mcp_servers", t.Source.Server).String() + "]"
			if s := didYouMean(t.Source.Server, servers); s != "" {
				hint = s
			} else if len(servers) > 0 {
				hint += "; configured servers: " + strings.Join(servers, ", ")
			}
			errs = append(errs, &diag.Error{Code: diag.CodeNotFound, Path: p.Append("source"), Msg: fmt.Sprintf("no MCP server named %q is configured", t.Source.Server), Hint: hint})
		}
	}
	for _, name := range servers {
		errs = append(errs, c.MCPServers[name].validate(mount.Append("mcp_servers", name))...)
	}
	if e := checkToolNames(c.ToolNames, mount.Append("tool_names")); e != nil {
		errs = append(errs, e)
	}
	errs = append(errs, c.Toolsets.validate(mount, c.Toolset)...)
	errs = append(errs, c.Budget.validate(mount.Append("budget"))...)
	if e := timeoutSec(c.Discover.TimeoutSec, mount, "discover", "timeout_sec"); e != nil {
		errs = append(errs, e)
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// timeoutSec checks a discovery timeout: a number of seconds, positive
// where it is set.
func timeoutSec(sec float64, parent partial.Path, keys ...string) *diag.Error {
	if sec >= 0 && !math.IsInf(sec, 1) {
		return nil
	}
	return &diag.Error{Code: diag.CodeBadValue, Path: parent.Append(keys...), Msg: fmt.Sprintf("must be a positive number of seconds, found %v", sec), Hint: "remove it for the default (5 seconds)"}
}

// allowDash finds the allow_dash settings that mean nothing: on a tool
// that no command template runs, or inside the items of an array, which
// no template names one by one.
func allowDash(params map[string]Parameter, path partial.Path, noCommand bool) diag.Errors {
	var errs diag.Errors
	var walk func(p Parameter, pp partial.Path, inItems bool)
	walk = func(p Parameter, pp partial.Path, inItems bool) {
		switch {
		case p.AllowDash && inItems:
			errs = append(errs, &diag.Error{Code: diag.CodeInvalid, Path: pp.Append("allow_dash"), Msg: "a command template cannot name an item of an array",
				Hint: "set allow_dash on a parameter that a template names"})
		case p.AllowDash && noCommand:
			errs = append(errs, &diag.Error{Code: diag.CodeInvalid, Path: pp.Append("allow_dash"), Msg: "only a tool run from a command template renders values as arguments",
				Hint: "remove allow_dash: this tool has no command"})
		}
		if p.Items != nil {
			walk(*p.Items, pp.Append("items"), true)
		}
		for _, name := range slices.Sorted(maps.Keys(p.Properties)) {
			walk(p.Properties[name], pp.Append("properties", name), inItems)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		walk(params[name], path.Append(name), false)
	}
	return errs
}

var kindName = map[SourceKind]string{SourceBuiltin: "a builtin", SourceMCP: "an MCP"}

// setKeys returns the keys of the fields t sets, in file order.
func (t Tool) setKeys() []string {
	var keys []string
	add := func(set bool, key string) {
		if set {
			keys = append(keys, key)
		}
	}
	add(!t.Source.IsZero(), "source")
	add(!t.Command.IsZero(), "command")
	add(t.Enable != nil, "enable")
	add(t.Summary != "", "summary")
	add(t.Description != "", "description")
	add(t.Examples != "", "examples")
	add(len(t.Run) > 0, "run")
	add(len(t.Result) > 0, "result")
	add(len(t.Policy.Get().Run) > 0 || len(t.Policy.Get().Result) > 0, "policy")
	add(len(t.Parameters) > 0, "parameters")
	add(len(t.Options) > 0, "options")
	add(len(t.Questions) > 0, "questions")
	add(len(t.Env) > 0, "env")
	add(len(t.EnvVars) > 0, "env_vars")
	add(t.Load != "", "load")
	add(t.DiscoverTimeoutSec != 0, "discover_timeout_sec")
	return keys
}
