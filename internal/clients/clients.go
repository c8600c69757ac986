// Package clients reads other clients' MCP server files (Claude Desktop,
// Claude Code, Cursor, VS Code, Codex) as layers of servers: each client's
// keys mapped to strata's, each client's variables expanded by that
// client's rules, and a server whose values resolve into an untrusted
// workspace left out. load calls [Translate] on a file's tree; the
// sources, precedence and trust of layers are load's.
package clients

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/decode"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/envfile"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/partial"
)

// Format is a format other tools keep MCP servers in, which load reads as
// a layer of MCP servers when its App.MCPServers says where they go. Every
// server of such a file exposes all its tools (expose = "all"), as in the
// client that wrote the file; stdio and remote servers alike are read,
// and each client's variables are expanded by that client's rules, from
// App.Environ.
type Format string

// The clients' formats.
const (
	// Claude is Claude Desktop's claude_desktop_config.json:
	// {"mcpServers": {"name": {"command", "args", "env"}}}; strings are
	// taken as written, since Claude Desktop expands no variables.
	Claude Format = "claude"
	// ClaudeCode is Claude Code's .mcp.json (and ~/.claude.json):
	// {"mcpServers": {"name": {"type": "stdio"|"http"|"sse", "command",
	// "args", "env", "url", "headers"}}}, with ${NAME} and
	// ${NAME:-default} in command, args, env, url and headers.
	ClaudeCode Format = "claude-code"
	// Cursor is Cursor's ~/.cursor/mcp.json and .cursor/mcp.json:
	// {"mcpServers": {"name": {"command", "args", "env", "envFile", "url",
	// "headers"}}}, with ${env:NAME}, ${userHome}, ${workspaceFolder},
	// ${workspaceFolderBasename} and ${pathSeparator} (or ${/}).
	Cursor Format = "cursor"
	// VSCode is VS Code's .vscode/mcp.json, read as JSONC (comments
	// and trailing commas): {"inputs": [...], "servers": {"name": {"type",
	// "command", "args", "env", "envFile", "cwd", "url", "headers"}}}, with
	// Cursor's variables and ${input:id}, which App.Input asks for.
	VSCode Format = "vscode"
	// Codex is Codex's config.toml, whose [mcp_servers.<name>]
	// tables are read and its other settings ignored. Never guessed: name
	// it, as --cfg codex:PATH or { path = "...", format = "codex" } in
	// extends.
	Codex Format = "codex"

	// mcpServers is a file with mcpServers whose client its name
	// does not tell: read as Claude Desktop's, and a variable in it is an
	// error that asks to name the client.
	mcpServers Format = "mcpServers"
)

// formats are the formats a --cfg prefix or an extends format may
// name.
var formats = []Format{Claude, ClaudeCode, Cursor, VSCode, Codex}

// Names are the formats a --cfg prefix or an extends format may name.
func Names() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = string(f)
	}
	return out
}

// Prefix splits an explicit format off a --cfg argument:
// "codex:~/.codex/config.toml".
func Prefix(arg string) (Format, string, bool) {
	for _, f := range formats {
		if rest, ok := strings.CutPrefix(arg, string(f)+":"); ok {
			return f, rest, true
		}
	}
	return "", arg, false
}

// ByName tells a client's file by its name and the directory it is
// in, before it is parsed (VS Code's and Cursor's are JSONC). Codex's
// config.toml is never guessed.
func ByName(path string) Format {
	base := filepath.Base(path)
	dir := filepath.Base(filepath.Dir(path))
	switch {
	case base == ".mcp.json" || base == ".claude.json":
		return ClaudeCode
	case base == "claude_desktop_config.json":
		return Claude
	case base == "mcp.json" && dir == ".cursor":
		return Cursor
	case base == "mcp.json" && dir == ".vscode":
		return VSCode
	case base == "mcp.json" && dir == "User" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(path))), "Code"):
		return VSCode // the user profile's mcp.json
	}
	return ""
}

// Detect tells a client's file by the root keys of its tree, those the
// host's type does not declare (declared reports whether it does), or
// returns "" for none.
func Detect(t *doc.Doc, declared func(key string) bool) Format {
	return detectForeign(&document{t: t}, declared)
}

// detectForeign tells a foreign file by its root keys, those the host's
// type does not declare.
func detectForeign(d *document, declared func(key string) bool) Format {
	root := d.tree().Root
	switch {
	case root.Get("mcpServers") != nil && !declared("mcpServers"):
		return mcpServers
	case d.tree().Format == doc.JSON && root.Get("servers") != nil && !declared("servers"):
		return VSCode
	}
	return ""
}

// JSONC reports whether the client reads its file as JSONC.
func (f Format) JSONC() bool { return f == VSCode || f == Cursor }

// aClient names the client that writes f with its article ("a Claude
// Code", "an mcpServers"), for messages.
func (f Format) aClient() string {
	switch f {
	case Claude:
		return "a Claude Desktop"
	case ClaudeCode:
		return "a Claude Code"
	case Cursor:
		return "a Cursor"
	case VSCode:
		return "a VS Code"
	case Codex:
		return "a Codex"
	}
	return "an mcpServers"
}

func foreignKey(f Format) string {
	switch f {
	case VSCode:
		return "servers"
	case Codex:
		return "mcp_servers"
	}
	return "mcpServers"
}

// Env is what reading clients' files needs from the loader: the host's
// environment, where the workspace is, and the host's way of asking for
// VS Code's inputs. One Env serves one load: it keeps the inputs answered.
type Env struct {
	Environ map[string]string
	Root    string // the workspace root, or ""
	Dir     string // the working directory
	Input   func(ctx context.Context, id, description string, password bool) (string, error)
	// answers are the inputs answered during this load, by id; passwords
	// are never kept here.
	answers map[string]string
	// Untrusted is the workspace when it is not trusted: a server whose
	// values resolve into it is left out.
	Untrusted untrusted.Workspace
	// ReadEnvFile reads an envFile within the load's limits.
	ReadEnvFile func(ctx context.Context, path string) ([]byte, error)
}

// home returns the user's home directory from the environment.
func (im *Env) home() string {
	if h := im.Environ["HOME"]; h != "" {
		return h
	}
	return im.Environ["USERPROFILE"]
}

// keyRule says what becomes of one key of a client's server.
type keyRule struct {
	kind keyKind
	to   string // copyKey: our key
	msg  string // warnKey, failKey
	hint string
}

type keyKind uint8

const (
	copyKey keyKind = iota // copied under our key
	dropKey                // read and dropped: no effect on what strata runs
	warnKey                // dropped with a warning: a setting strata does not apply
	failKey                // an error: strata cannot do what the setting asks
	ownKey                 // handled by the server's own code
)

var (
	same    = keyRule{kind: copyKey}
	drop    = keyRule{kind: dropKey}
	handled = keyRule{kind: ownKey}
	oauth   = keyRule{kind: warnKey, msg: "this client's OAuth settings are not read; strata finds a server's sign-in by itself", hint: "sign in with strata login <server>; a client registered beforehand, or scopes, go under [mcp_servers.<server>.oauth] in a strata layer"}
)

// serverKeys are the keys of each client's server tables.
var serverKeys = map[Format]map[string]keyRule{
	Claude: {
		"command": same, "args": same, "env": same, "cwd": same, "url": same, "headers": same,
		"type": handled, "disabled": handled,
		// Settings of other clients that share the format (Cline, Roo): approvals and a timeout.
		"autoApprove": drop, "alwaysAllow": drop, "timeout": drop,
	},
	ClaudeCode: {
		"command": same, "args": same, "env": same, "cwd": same, "url": same, "headers": same,
		"type": handled, "oauth": oauth,
		"headersHelper": {kind: failKey, msg: "headersHelper runs a command to make the headers, which strata does not do", hint: "write the headers out in headers"},
	},
	Cursor: {
		"command": same, "args": same, "env": same, "cwd": same, "url": same, "headers": same,
		"type": handled, "envFile": handled, "auth": oauth,
	},
	VSCode: {
		"command": same, "args": same, "env": same, "cwd": same, "url": same, "headers": same,
		"type": handled, "envFile": handled,
		"dev": drop, "gallery": drop, "version": drop,
		"sandboxEnabled": {kind: failKey, msg: "VS Code's sandbox is not available in strata; the server would run without it", hint: "remove sandboxEnabled to run the server unsandboxed"},
		"sandbox":        {kind: failKey, msg: "VS Code's sandbox is not available in strata; the server would run without it", hint: "remove sandbox to run the server unsandboxed"},
	},
	Codex: {
		"command": same, "args": same, "env": same, "cwd": same, "url": same,
		"http_headers": keyRule{kind: copyKey, to: "headers"}, "bearer_token_env_var": same,
		"startup_timeout_sec": same, "tool_timeout_sec": same, "enabled": same,
		"enabled_tools": same, "disabled_tools": same,
		"env_vars": handled, "env_http_headers": handled, "startup_timeout_ms": handled, "required": handled,
		"bearer_token": {kind: failKey, msg: "a token written in the file is not accepted (Codex refuses it too)", hint: `keep the token in a variable and write bearer_token_env_var = "NAME"`},
		"name":         drop, "supports_parallel_tool_calls": drop,
		"default_tools_approval_mode": {kind: warnKey, msg: "approval modes are not read", hint: `set run = "unattended" on the tools in a strata layer`},
		"tools":                       {kind: warnKey, msg: "per-tool approval modes are not read", hint: `set run = "unattended" on the tools in a strata layer`},
		"scopes":                      oauth, "oauth": oauth, "oauth_resource": oauth,
		"experimental_environment": {kind: warnKey, msg: "experimental_environment is not read; strata starts the server on this machine"},
	},
}

func init() { serverKeys[mcpServers] = serverKeys[Claude] }

// expanded are the keys whose strings a client expands variables in; nil
// for VS Code, which expands every string, and for clients that expand
// none.
var expanded = map[Format][]string{
	ClaudeCode: {"command", "args", "env", "url", "headers"},
	Cursor:     {"command", "args", "env", "url", "headers", "envFile"},
}

// foreignFile is one client's file being read.
type foreignFile struct {
	ctx       context.Context
	d         *document
	f         Format
	at        partial.Path // where the host keeps servers
	im        *Env
	inputs    map[string]*doc.Node // VS Code's inputs by id
	inputIDs  []string
	passwords map[string]string // password inputs answered for this file only
	errs      diag.Errors
	warnings  diag.Errors
	unnamed   bool // an error asking to name the client was reported
	// refused is why the server being read is left out: the first of its
	// values that resolves into the untrusted workspace.
	refused *refusal
}

// refusal is a value of a server that resolves into the untrusted
// workspace: where it is, and what.
type refusal struct {
	n   *doc.Node
	p   partial.Path
	why *untrusted.Refused
}

// refuse records that the value n at p resolves into the untrusted
// workspace, unless an earlier value of the server did.
func (fi *foreignFile) refuse(n *doc.Node, p partial.Path, why *untrusted.Refused) {
	if fi.refused == nil {
		fi.refused = &refusal{n, p, why}
	}
}

func (fi *foreignFile) fail(code diag.Code, n *doc.Node, p partial.Path, msg, hint string) {
	fi.errs = append(fi.errs, fi.d.errAt(code, n, p, msg, hint))
}

func (fi *foreignFile) failKey(code diag.Code, n *doc.Node, p partial.Path, msg, hint string) {
	fi.errs = append(fi.errs, fi.d.errAtKey(code, n, p, msg, hint))
}

func (fi *foreignFile) warn(code diag.Code, n *doc.Node, p partial.Path, msg, hint string) {
	fi.warnings = append(fi.warnings, fi.d.errAtKey(code, n, p, msg, hint))
}

// secret records that the string node n holds a value that came from
// from, as written (a variable, an input, an envFile): it decodes into a
// secret.String, which prints as its reference.
func (fi *foreignFile) secret(n *doc.Node, from string) {
	t := fi.d.tree()
	if t.Secrets == nil {
		t.Secrets = map[*doc.Node]string{}
	}
	t.Secrets[n] = from
}

// Translate rewrites the tree of the client's file name, in format f, into
// a layer that holds its MCP servers at path at. Nodes keep their offsets,
// so problems still point into the file. Settings strata does not apply
// are returned as warnings; settings it cannot honour, and variables it
// cannot resolve, are errors. A value the file got from a variable, an
// input or an envFile is marked in tree.Secrets with what it came from:
// it decodes into a secret.String.
func Translate(ctx context.Context, name string, tree *doc.Doc, f Format, at partial.Path, im *Env) (warnings diag.Errors, err error) {
	d := &document{name: name, t: tree}
	if im.answers == nil {
		im.answers = map[string]string{}
	}
	return d.foreign(ctx, f, at, im)
}

func (d *document) foreign(ctx context.Context, f Format, at partial.Path, im *Env) (diag.Errors, error) {
	fi := &foreignFile{ctx: ctx, d: d, f: f, at: at, im: im, passwords: map[string]string{}}
	root := d.tree().Root
	key := foreignKey(f)
	servers := root.Get(key)
	out := doc.NewTable()
	if f == VSCode {
		fi.readInputs(root.Get("inputs"))
	}
	if servers == nil {
		d.tree().Root = out
		return nil, fi.result()
	}
	where := partial.Path{key}
	if servers.Kind != doc.Table {
		return nil, d.errAt(diag.CodeType, servers, where, "expected a table of servers by name, found "+decode.Describe(servers), "")
	}
	mapped := doc.NewTable()
	mapped.Inline = false
	for _, srv := range servers.Entries {
		if s := fi.server(srv, where.Append(srv.Key)); s != nil {
			mapped.Set(srv.Key, s)
		}
	}
	if err := fi.result(); err != nil {
		return nil, err
	}
	// Place the servers at the host's path.
	t := out
	for _, k := range at[:len(at)-1] {
		c := doc.NewTable()
		t.Set(k, c)
		t = c
	}
	t.Set(at[len(at)-1], mapped)
	d.tree().Root = out
	return fi.warnings, nil
}

func (fi *foreignFile) result() error {
	if len(fi.errs) > 0 {
		return fi.errs
	}
	return nil
}

// server turns one client's server into ours, or returns nil after
// reporting why it cannot.
func (fi *foreignFile) server(srv *doc.Node, p partial.Path) *doc.Node {
	if srv.Kind != doc.Table {
		fi.fail(diag.CodeType, srv, p, "expected a server table, found "+decode.Describe(srv), "")
		return nil
	}
	rules := serverKeys[fi.f]
	nerrs := len(fi.errs)
	fi.refused = nil
	fi.expand(srv, p)
	out := doc.NewTable()
	out.Inline = false
	out.KeyOff, out.Off = srv.KeyOff, srv.Off
	for _, e := range srv.Entries {
		r, ok := rules[e.Key]
		if !ok {
			fi.unknownKey(e, p, rules)
			continue
		}
		switch r.kind {
		case copyKey:
			to := r.to
			if to == "" {
				to = e.Key
			}
			if to == "env" {
				envStrings(e)
			}
			out.Set(to, e)
		case warnKey:
			fi.warn(diag.CodeLeftOut, e, p.Append(e.Key), r.msg, r.hint)
		case failKey:
			fi.failKey(diag.CodeRefused, e, p.Append(e.Key), r.msg, r.hint)
		}
	}
	fi.specials(srv, out, p)
	if len(fi.errs) > nerrs {
		return nil
	}
	if r := fi.refused; r != nil {
		// Workspace content: left out, with one warning, until the
		// workspace is trusted; never used, never pointed elsewhere.
		fi.warn(diag.CodeUntrusted, r.n, r.p, fmt.Sprintf("the server %s is left out: %s", srv.Key, r.why.Error()), r.why.Hint())
		out.Set("enabled", positioned(doc.NewBool(false), r.n))
	}
	all := doc.NewString("all")
	all.KeyOff, all.Off = srv.KeyOff, srv.KeyOff
	out.Set("expose", all)
	return out
}

// unknownKey reports a key the client's format does not have.
func (fi *foreignFile) unknownKey(e *doc.Node, p partial.Path, rules map[string]keyRule) {
	known := make([]string, 0, len(rules))
	for k := range rules {
		known = append(known, k)
	}
	slices.Sort(known)
	hint := ""
	if c := suggest.Closest(e.Key, known); c != "" {
		hint = "did you mean " + c + "?"
	} else if fi.f == mcpServers {
		hint = "if another client wrote this file, name it: --cfg cursor:PATH or claude-code:PATH"
	}
	fi.failKey(diag.CodeUnknownKey, e, p.Append(e.Key), fmt.Sprintf("unknown key of %s server", fi.f.aClient()), hint)
}

// envStrings turns the numbers of an env table into strings, as the clients
// pass them to the server.
func envStrings(env *doc.Node) {
	if env.Kind != doc.Table {
		return
	}
	for _, v := range env.Entries {
		switch v.Kind {
		case doc.Integer:
			v.Kind, v.Str = doc.String, strconv.FormatInt(v.Int(), 10)
		case doc.Float:
			v.Kind, v.Str = doc.String, strconv.FormatFloat(v.Float(), 'g', -1, 64)
		case doc.Bool:
			v.Kind, v.Str = doc.String, strconv.FormatBool(v.Bool)
		}
	}
}

// specials handles the keys whose meaning is not a plain copy.
func (fi *foreignFile) specials(srv, out *doc.Node, p partial.Path) {
	if t := srv.Get("type"); t != nil {
		fi.checkType(t, out, p.Append("type"))
	}
	if e := srv.Get("disabled"); e != nil {
		if e.Kind != doc.Bool {
			fi.fail(diag.CodeType, e, p.Append("disabled"), "expected true or false, found "+decode.Describe(e), "")
		} else {
			out.Set("enabled", positioned(doc.NewBool(!e.Bool), e))
		}
	}
	if e := srv.Get("envFile"); e != nil {
		fi.envFile(e, out, p.Append("envFile"))
	}
	if fi.f == Codex {
		fi.codex(srv, out, p)
	}
}

// positioned gives node n the position of node at.
func positioned(n, at *doc.Node) *doc.Node {
	n.KeyOff, n.Off = at.KeyOff, at.Off
	return n
}

// checkType checks a server's type against what it has: stdio servers
// have a command, http and sse servers a url (which strata reaches over
// streamable HTTP, or the older HTTP+SSE where the server offers only
// that).
func (fi *foreignFile) checkType(t, out *doc.Node, p partial.Path) {
	types := []string{"stdio", "http", "sse"}
	if t.Kind != doc.String || !slices.Contains(types, t.Str) {
		hint := ""
		switch {
		case t.Kind == doc.String && (t.Str == "ws" || t.Str == "websocket"):
			fi.fail(diag.CodeBadValue, t, p, "WebSocket servers are not supported (the MCP Go SDK has no WebSocket transport)", "reach the server over http if it offers that")
			return
		case t.Kind == doc.String:
			if c := suggest.Closest(t.Str, types); c != "" {
				hint = "did you mean " + c + "?"
			}
		}
		fi.fail(diag.CodeBadValue, t, p, "expected stdio, http or sse, found "+decode.Describe(t), hint)
		return
	}
	cmd, url := out.Get("command") != nil, out.Get("url") != nil
	switch {
	case t.Str == "stdio" && !cmd:
		fi.fail(diag.CodeInvalid, t, p, `a server of type "stdio" needs a command`, "add a command, or make it an http server with a url")
	case t.Str == "stdio" && url:
		fi.fail(diag.CodeInvalid, t, p, `a server of type "stdio" has no url`, `remove the url, or write "type": "http"`)
	case t.Str != "stdio" && !url:
		fi.fail(diag.CodeInvalid, t, p, fmt.Sprintf("a server of type %q needs a url", t.Str), `add a url, or write "type": "stdio" with a command`)
	case t.Str != "stdio" && cmd:
		fi.fail(diag.CodeInvalid, t, p, fmt.Sprintf("a server of type %q has no command", t.Str), `remove the command, or write "type": "stdio"`)
	}
}

// envFile reads the variables of a Cursor or VS Code envFile into the
// server's env, under what env sets itself. A relative path is relative to
// the workspace folder, as both clients take it.
func (fi *foreignFile) envFile(e, out *doc.Node, p partial.Path) {
	if e.Kind != doc.String || e.Str == "" {
		fi.fail(diag.CodeType, e, p, "expected the path of an environment file, found "+decode.Describe(e), "")
		return
	}
	if out.Get("url") != nil {
		fi.fail(diag.CodeInvalid, e, p, "envFile is for a server strata starts; this one is remote (url)", "remove envFile, and put what the server needs in headers")
		return
	}
	if fi.refused != nil {
		return // the server is left out: its envFile is not read
	}
	path := e.Str
	if !filepath.IsAbs(path) {
		path = filepath.Join(fi.workspaceFolder(), path)
	}
	if fi.im.Untrusted.Holds(path) {
		fi.refuse(e, p, fi.im.Untrusted.Refuse(untrusted.EnvFile, path))
		return
	}
	data, err := fi.im.ReadEnvFile(fi.ctx, path)
	if err != nil {
		msg, hint := err.Error(), ""
		var de *diag.Error
		if errors.As(err, &de) {
			msg, hint = strings.TrimPrefix(de.Msg, "cannot read: "), de.Hint
		}
		if !filepath.IsAbs(e.Str) {
			hint = "the path is relative to the workspace folder " + fi.workspaceFolder()
		}
		fi.fail(diag.CodeRead, e, p, "cannot read the environment file "+path+": "+msg, hint)
		return
	}
	vars, skipped := envfile.Parse(string(data))
	for _, s := range skipped {
		fi.warn(diag.CodeSyntax, e, p, fmt.Sprintf("line %d of %s defines nothing: %s", s.Line, path, s.Reason), "write NAME=VALUE")
	}
	env := out.Get("env")
	if env == nil {
		env = positioned(doc.NewTable(), e)
		env.Inline = false
		out.Set("env", env)
	}
	if env.Kind != doc.Table {
		return // the decoder reports it
	}
	fromFile := map[string]string{}
	var order []string
	for _, v := range vars {
		if _, seen := fromFile[v.Name]; !seen {
			order = append(order, v.Name)
		}
		fromFile[v.Name] = v.Value
	}
	for _, name := range order {
		if env.Get(name) == nil {
			v := positioned(doc.NewString(fromFile[name]), e)
			env.Set(name, v)
			fi.secret(v, name+" in "+path)
		}
	}
}

// codex maps Codex's keys that have no plain counterpart.
func (fi *foreignFile) codex(srv, out *doc.Node, p partial.Path) {
	if e := srv.Get("env_vars"); e != nil {
		fi.codexEnvVars(e, out, p.Append("env_vars"))
	}
	if e := srv.Get("env_http_headers"); e != nil {
		fi.codexEnvHeaders(e, out, p.Append("env_http_headers"))
	}
	if e := srv.Get("startup_timeout_ms"); e != nil {
		switch {
		case e.Kind != doc.Integer || e.Int() < 0:
			fi.fail(diag.CodeType, e, p.Append("startup_timeout_ms"), "expected a whole number of milliseconds, found "+decode.Describe(e), "")
		case srv.Get("startup_timeout_sec") == nil: // Codex lets startup_timeout_sec win
			out.Set("startup_timeout_sec", positioned(doc.NewFloat(float64(e.Int())/1000), e))
		}
	}
	if e := srv.Get("required"); e != nil {
		if e.Kind != doc.Bool {
			fi.fail(diag.CodeType, e, p.Append("required"), "expected true or false, found "+decode.Describe(e), "")
		} else {
			out.Set("optional", positioned(doc.NewBool(!e.Bool), e))
		}
	}
}

// codexEnvVars reads env_vars: names, or { name, source } tables whose
// source is "local" (the machine strata runs on).
func (fi *foreignFile) codexEnvVars(e, out *doc.Node, p partial.Path) {
	if e.Kind != doc.Array {
		fi.fail(diag.CodeType, e, p, "expected a list of variable names, found "+decode.Describe(e), `write env_vars = ["GITHUB_TOKEN"]`)
		return
	}
	names := positioned(doc.NewArray(), e)
	for i, v := range e.Entries {
		at := p.Append(strconv.Itoa(i))
		switch v.Kind {
		case doc.String:
			names.Append(v)
		case doc.Table:
			name, source := v.Get("name"), v.Get("source")
			for _, k := range v.Entries {
				if k.Key != "name" && k.Key != "source" {
					fi.failKey(diag.CodeUnknownKey, k, at.Append(k.Key), "unknown key of an env_vars entry", "an entry is { name = \"NAME\", source = \"local\" }")
				}
			}
			switch {
			case name == nil || name.Kind != doc.String:
				fi.fail(diag.CodeInvalid, v, at, "an env_vars entry needs a name", `write { name = "NAME" }`)
			case source != nil && (source.Kind != doc.String || source.Str != "local" && source.Str != "remote"):
				fi.fail(diag.CodeBadValue, source, at.Append("source"), "expected local or remote, found "+decode.Describe(source), "")
			case source != nil && source.Str == "remote":
				fi.fail(diag.CodeBadValue, source, at.Append("source"), "a variable of a remote executor is not available: strata starts servers on this machine", `remove source, or write source = "local"`)
			default:
				names.Append(name)
			}
		default:
			fi.fail(diag.CodeType, v, at, "expected a variable name, found "+decode.Describe(v), "")
		}
	}
	out.Set("env_vars", names)
}

// codexEnvHeaders reads env_http_headers: header names and the variables
// their values come from. As in Codex, a header whose variable is unset or
// blank is not sent; strata says so.
func (fi *foreignFile) codexEnvHeaders(e, out *doc.Node, p partial.Path) {
	if e.Kind != doc.Table {
		fi.fail(diag.CodeType, e, p, "expected a table of header names and variable names, found "+decode.Describe(e), `write env_http_headers = { "X-Api-Key" = "API_KEY" }`)
		return
	}
	headers := out.Get("headers")
	if headers == nil {
		headers = positioned(doc.NewTable(), e)
		out.Set("headers", headers)
	}
	if headers.Kind != doc.Table {
		return // the decoder reports it
	}
	for _, h := range e.Entries {
		if h.Kind != doc.String {
			fi.fail(diag.CodeType, h, p.Append(h.Key), "expected the name of a variable, found "+decode.Describe(h), "")
			continue
		}
		v := fi.im.Environ[h.Str]
		if strings.TrimSpace(v) == "" {
			fi.warn(diag.CodeLeftOut, h, p.Append(h.Key), fmt.Sprintf("the header %s is not sent: the variable %s is not set", h.Key, h.Str), "set "+h.Str+", as Codex needs it too")
			continue
		}
		n := positioned(doc.NewString(v), h)
		headers.Set(h.Key, n)
		fi.secret(n, "$"+h.Str)
	}
}

// workspaceFolder is ${workspaceFolder}: the folder that holds the
// client's .vscode or .cursor directory, or, for a file of the user's
// (~/.cursor/mcp.json, VS Code's profile), the loader's workspace root,
// else its working directory.
func (fi *foreignFile) workspaceFolder() string {
	name, _ := filepath.Abs(fi.d.name)
	dir := filepath.Dir(name)
	if b := filepath.Base(dir); b == ".vscode" || b == ".cursor" {
		folder := filepath.Dir(dir)
		if h := fi.im.home(); h == "" || filepath.Clean(h) != folder {
			return folder
		}
	}
	if fi.im.Root != "" {
		return fi.im.Root
	}
	return fi.im.Dir
}

// codexRootKeys are root keys of Codex's config.toml that a strata layer
// does not have.
var codexRootKeys = []string{
	"model", "model_provider", "model_providers", "model_reasoning_effort", "model_reasoning_summary",
	"model_verbosity", "model_context_window", "review_model", "approval_policy", "sandbox_mode",
	"sandbox_workspace_write", "profile", "profiles", "projects", "notify", "history", "tui",
	"shell_environment_policy", "file_opener", "hide_agent_reasoning", "show_raw_agent_reasoning",
	"disable_response_storage", "features", "experimental_use_rmcp_client", "mcp_oauth_credentials_store",
	"project_doc_max_bytes", "chatgpt_base_url", "forced_login_method", "preferred_auth_method", "otel",
}

// codexServerKeys are keys of Codex's servers that strata's have not.
var codexServerKeys = []string{
	"http_headers", "env_http_headers", "bearer_token", "required", "startup_timeout_ms",
	"supports_parallel_tool_calls", "default_tools_approval_mode", "scopes", "oauth", "oauth_resource",
	"experimental_environment",
}

// CodexProblems returns the problems err of decoding the TOML file name,
// whose tree is t, as a layer, or, when they show that it is Codex's
// config.toml, the same problems with one that says so first; see
// [document.codexProblems].
func CodexProblems(name string, t *doc.Doc, err error, app string) error {
	return (&document{name: name, t: t}).codexProblems(err, app)
}

// codexProblems returns the problems err of decoding a TOML document as a
// layer, or, when they show that it is Codex's config.toml (unknown keys
// that are Codex's settings, or a file in a .codex directory), the same
// problems with one that says so first instead of an unknown key for
// each of Codex's settings. It guesses only from keys the host's type
// does not declare (those are unknown keys), and keeps every other
// problem of the file. app names the application, whose flags the hint
// names only when it is strata.
func (d *document) codexProblems(err error, app string) error {
	if d.tree().Format != doc.TOML {
		return err
	}
	var first *diag.Error
	var rest diag.Errors
	for _, e := range diag.All(err) {
		if e.Code == diag.CodeUnknownKey && isCodexKey(e.Path) {
			if first == nil {
				first = e
			}
			continue
		}
		rest = append(rest, e)
	}
	abs, _ := filepath.Abs(d.name)
	if first == nil && filepath.Base(filepath.Dir(abs)) != ".codex" {
		return err
	}
	e := &diag.Error{Code: diag.CodeForeign, Source: d.name}
	if first != nil {
		c := *first
		e = &c
		e.Path = nil
	}
	e.Code, e.Severity = diag.CodeForeign, diag.SeverityError
	e.Msg = "this is Codex's config.toml, not a strata layer"
	e.Hint, e.Err = `read it as Codex's: { path = "...", format = "codex" } in extends`, nil
	if app == "strata" {
		e.Hint = "read it as Codex's: --cfg codex:" + d.name + `, or { path = "...", format = "codex" } in extends`
	}
	return append(diag.Errors{e}, rest...)
}

// isCodexKey reports whether path is a key of Codex's config.toml that is
// not strata's: one of its root settings, or of its servers.
func isCodexKey(path partial.Path) bool {
	switch len(path) {
	case 1:
		return slices.Contains(codexRootKeys, path[0])
	case 3:
		return path[0] == "mcp_servers" && slices.Contains(codexServerKeys, path[2])
	}
	return false
}
