package strata

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// Option configures [Open].
type Option interface{ apply(*settings) }

type option func(*settings)

func (f option) apply(s *settings) { f(s) }

// loading is what loading is given: the fields of a [load.App] that the
// options set.
type loading struct {
	Name    string       // names the host's files and variables (see Name)
	Mount   partial.Path // where the tools model sits in the host's config
	Dir     string       // where loading starts; "" is the working directory
	Environ []string     // nil is the process's environment
	Cfg     []string
	// Overrides are the host's key=value flags, OverrideFlag their name.
	Overrides    []string
	OverrideFlag string
	// LeaveOutside leaves keys outside Mount to the host; EnvPrefix names
	// the configuration's variables (see load.App).
	LeaveOutside bool
	EnvPrefix    string
	HostEnv      []string // the host's own variables under EnvPrefix
	Flags        any      // *P
	Store        *trust.Store
	TrustOnce    bool
	TrustHint    func(load.Untrusted) string
	Provenance   bool
	UnknownEnv   load.EnvPolicy
	Input        func(ctx context.Context, id, description string, password bool) (string, error)
	Sources      []load.HostSource
	Limits       codec.Limits

	// ConfigHome is the directory of the user's file; "" is the XDG place.
	ConfigHome string
}

// settings are what the options set: what loading is given, and what
// resolving, calling and serving are.
type settings struct {
	loading
	mountErr error
	cacheDir string
	refresh  bool
	offline  bool
	timeout  time.Duration
	callTime time.Duration
	builtins map[string]resolve.Discovered
	builtin  func(ctx context.Context, pc protocol.Context) (protocol.Outcome, error)
	ask      func(ctx context.Context, tool string, q protocol.Inquiry, target config.Target) (any, bool, error)
	confirm  func(ctx context.Context, tool string, args json.RawMessage) (bool, error)
	toolset  *string // the run's tool set, over the config's toolset key
	inherit  bool    // every program gets the whole environment (InheritEnv)
	startIn  bool    // programs start in the workspace, trusted or not (StartInWorkspace)
	// inProcess connects to the host's in-process MCP servers, by name
	// (InProcess).
	inProcess map[string]func(ctx context.Context) (mcp.Transport, error)
	// sampling and elicitation answer the servers' requests (Sampling,
	// Elicitation).
	sampling, elicitation func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)
	progress              func(what string) (done func())
	names                 config.NameScheme // the host's tool_names, under the config's
	signIns               string            // the file of sign-ins (see SignIns)
	// policies are the policy files (see Policies), policySources the
	// sources of policies; strict makes a value outside them an error.
	policies      []policyFile
	policySources []load.HostSource
	strict        bool
}

// policyFile is a policy file and whether it may be missing.
type policyFile struct {
	path     string
	optional bool
}

// Name names the host's files and variables: .<name>/config.toml,
// .<name>.toml and <NAME>_... variables. The default is "strata".
func Name(name string) Option { return option(func(s *settings) { s.Name = name }) }

// Mount says where the tools model sits in the host's config: the key
// path of the table that holds its tools, mcp_servers and discover keys
// ("assistant" puts the tools at assistant.tools). The default is the
// root, as in strata's own model. Every problem, hint and trust message
// names the host's full key path.
func Mount(path string) Option {
	return option(func(s *settings) {
		if path == "" {
			s.Mount = nil
			return
		}
		s.Mount, s.mountErr = partial.ParsePath(path)
	})
}

// Dir is the working directory; the default is the process's.
func Dir(dir string) Option { return option(func(s *settings) { s.Dir = dir }) }

// ConfigHome is where the host keeps the user's file (config.toml, .json
// or .yaml): "~/.myapp", ~ being the home directory, or an absolute path.
// The default is $XDG_CONFIG_HOME/<name>, else ~/.config/<name>; the
// <NAME>_CONFIG_HOME variable overrides either. The home directory does
// not become a workspace for holding it (see [load.App].ConfigHome). A
// host that keeps its trust list there too gives [TrustStore]
// filepath.Join(dir, "trusted.toml").
func ConfigHome(dir string) Option { return option(func(s *settings) { s.ConfigHome = dir }) }

// Environ is the environment, as NAME=VALUE entries; the default is the
// process's. Variables, the user's directories and the programs' base
// environment are read from it, and from nowhere else.
func Environ(environ []string) Option {
	return option(func(s *settings) { s.Environ = environ })
}

// Cfg adds --cfg arguments, in order: a file, a key=value override, a JSON
// object, or NONE, which drops every layer below it but the defaults. A
// host's own key=value flags go to [Overrides], where a user's NONE is
// an error.
func Cfg(args ...string) Option {
	return option(func(s *settings) { s.Cfg = append(s.Cfg, args...) })
}

// Overrides adds key=value overrides from the host's own flag, named
// flag ("--set"), after [Cfg]: each is an assignment (key=value, key:=json,
// key+=value, key:+=json) at the host's key paths, and problems and
// [Workspace.Explain] name it as flag and its number ("--set #2"). A file,
// a JSON object or NONE is an error, not a layer: a host that wants
// those gives them to Cfg.
func Overrides(flag string, kv ...string) Option {
	return option(func(s *settings) {
		s.OverrideFlag = flag
		s.Overrides = append(s.Overrides, kv...)
	})
}

// LeaveOutside leaves the keys of files outside the [Mount] to the host:
// strata checks every key under the mount (an unknown one is an error,
// with a did-you-mean) and leaves out of its layers, without a problem,
// the keys its types do not declare elsewhere, which the host reads
// itself or with koanf from the same files.
func LeaveOutside() Option { return option(func(s *settings) { s.LeaveOutside = true }) }

// EnvPrefix names the host's configuration variables:
// EnvPrefix("MYAPP_CFG") reads MYAPP_CFG_ASSISTANT_MODEL as
// assistant.model, and leaves MYAPP_API_KEY alone; a variable under the
// prefix that reaches no key is an error with a did-you-mean (see
// [UnknownEnv]). The default is the [Name]: MYAPP_.
func EnvPrefix(prefix string) Option { return option(func(s *settings) { s.EnvPrefix = prefix }) }

// HostEnv declares the host's own variables under the prefix of the
// configuration's ([EnvPrefix], else the [Name]): whole names
// ("MYAPP_MODEL") or prefixes ending in * ("MYAPP_PROVIDER_*"), which the
// host reads itself. strata leaves them alone and keeps checking every
// other variable under the prefix: one whose name reaches no key is an
// error (see [UnknownEnv]) with a did-you-mean, which names the host's
// variable when that is the closest (MYAPP_MODLE). A name not under the
// prefix is an error of [Open].
func HostEnv(names ...string) Option {
	return option(func(s *settings) { s.HostEnv = append(s.HostEnv, names...) })
}

// Sources adds layers the host reads from elsewhere, each at the place it
// names: an organisation's defaults in a key-value store (above the
// defaults, below the user's file), settings the host loads itself.
// Package koanflayer makes them of koanf's providers.
func Sources(src ...load.HostSource) Option {
	return option(func(s *settings) { s.Sources = append(s.Sources, src...) })
}

// Policies adds policy layers read from files (see package policy): a
// layer above every other whose values are constraints, which clamps the
// config to them. Each file must exist; a policy file inside the
// workspace is refused, whoever names it.
func Policies(paths ...string) Option {
	return option(func(s *settings) {
		for _, p := range paths {
			s.policies = append(s.policies, policyFile{path: p})
		}
	})
}

// SystemPolicy adds the policy layer at path when the file exists: the
// place an organisation installs its policy (strata's command reads
// policy.SystemPath).
func SystemPolicy(path string) Option {
	return option(func(s *settings) { s.policies = append(s.policies, policyFile{path: path, optional: true}) })
}

// PolicySources adds policy layers the host reads from elsewhere: a
// koanf provider (package koanflayer makes a load.HostSource of one),
// an organisation's key-value store. Their Kind and Above are not used:
// a policy ranks above every layer.
func PolicySources(src ...load.HostSource) Option {
	return option(func(s *settings) { s.policySources = append(s.policySources, src...) })
}

// Strict makes a value outside a policy an error of [Open], where it
// falls back to the nearest allowed value with a warning.
func Strict() Option { return option(func(s *settings) { s.strict = true }) }

// Flags is the layer of the host's explicit command-line flags, the
// highest. Its type must be the host's partial type P.
func Flags[P any](p *P) Option { return option(func(s *settings) { s.Flags = p }) }

// TrustStore is where the user's trust is kept. Without one, no workspace
// is trusted: its own files do not apply, and programs start in a neutral
// directory.
func TrustStore(store *trust.Store) Option {
	return option(func(s *settings) { s.Store = store })
}

// TrustWorkspace trusts the workspace root (outside a workspace, the
// root of the repository loading starts in, else that directory) for
// this open only, exactly, as --trust
// does: not the repositories nested in it. A home directory or / is not
// trusted so: Open fails with the problem strata trust gives (see
// [load.RefuseBroad]), unless the trust list trusts it already.
func TrustWorkspace() Option { return option(func(s *settings) { s.TrustOnce = true }) }

// TrustHint tells the user how to trust the directory whose files were not
// applied, in the warning about them (see [load.App].TrustHint); the
// default says to trust it. It is never asked about the home directory.
func TrustHint(hint func(load.Untrusted) string) Option {
	return option(func(s *settings) { s.TrustHint = hint })
}

// StartInWorkspace makes trust gate the workspace's files alone: the
// programs of the host's and the user's own layers (MCP servers, tools,
// discovery runs) start in the workspace root, or outside a workspace in
// the directory loading starts in, whether or not it is trusted, and an
// argument or directory that names a path there is taken as written, as
// hosts that start every server in their working directory do (mcphost,
// Claude Desktop). The workspace's own files still apply only once it is
// trusted.
//
// Without it, the default, trust gates the launch directory too: until
// the workspace is trusted, each program starts in an empty private
// directory, a server whose argument names a path in the workspace (an
// absolute path, or a relative one such as ".") is warned about, at its
// place in the config, with the fix, and one whose program, directory or
// variables resolve into it does not start. A host takes this option when
// its users chose the directory they run it in, and accepts what that
// costs: a program started in a directory it does not trust may run what
// the directory holds (npx runs its node_modules/.bin, Python imports its
// sitecustomize.py), which the prompt injection of a model with a
// file-writing tool can have put there.
func StartInWorkspace() Option { return option(func(s *settings) { s.startIn = true }) }

// InheritEnv gives every program strata starts (an MCP server, a tool
// asked for its schema, a call) the host's whole environment ([Environ]),
// as if each env_vars held "*": what the Go SDK's CommandTransport, mcp-go
// and Claude Code give the servers they start. Without it a program gets
// the base set of variables and those its config names (see
// procs.Env's documentation in the README), as the TypeScript SDK and
// Codex give a small set. A host whose users' servers relied on inheriting
// a token (GITHUB_TOKEN) keeps them working with it; the variables go to
// every program, the workspace's own included once it is trusted.
func InheritEnv() Option { return option(func(s *settings) { s.inherit = true }) }

// InProcess registers an MCP server that the host runs in its own
// process as the MCP server name of the tools model: mcp_servers.<name>,
// whose in_process = true a layer of its own, above the defaults, sets.
// connect returns a new connection to the server each time strata
// connects, over which strata and the server exchange MCP's stdio
// messages (JSON-RPC, one a line): the server of any Go MCP library
// serves it as it serves stdin and stdout. With the official Go SDK:
//
//	strata.InProcess("myhost", func(ctx context.Context) (io.ReadWriteCloser, error) {
//		ours, theirs := net.Pipe()
//		_, err := server.Connect(ctx, &mcp.IOTransport{Reader: theirs, Writer: theirs}, nil)
//		return ours, err
//	})
//
// strata starts no program for it. Its tools are the catalog's as any
// server's are: named by tool_names, chosen by expose, enabled_tools and
// disabled_tools, overridden under [tools.<name>], in tool sets, the lock
// and the budget, run by policy; a layer may set its settings (enabled,
// tool_timeout_sec, tool_names...) but not a command or url. Trust applies
// to the layers that configure it, not to the server, which is the
// host's own code: it is not cached, pinned or started in a private
// directory. Its results reach [Workspace.Call] (call.Response.MCP) and
// [Workspace.Serve]'s clients whole: images, structuredContent; its
// progress and its sampling requests go where a started server's do (see
// [Sampling]). strata closes a connection when it is done with it.
func InProcess(name string, connect func(ctx context.Context) (io.ReadWriteCloser, error)) Option {
	return option(func(s *settings) {
		if s.inProcess == nil {
			s.inProcess = map[string]func(ctx context.Context) (mcp.Transport, error){}
		}
		s.inProcess[name] = func(ctx context.Context) (mcp.Transport, error) {
			c, err := connect(ctx)
			if err != nil {
				return nil, err
			}
			return &mcp.IOTransport{Reader: c, Writer: c}, nil
		}
	})
}

// CacheDir keeps discovery answers in dir, so that resolving again runs
// nothing; without it nothing is cached. See [DefaultCacheDir].
func CacheDir(dir string) Option { return option(func(s *settings) { s.cacheDir = dir }) }

// Refresh asks every tool again instead of using cached answers.
func Refresh() Option { return option(func(s *settings) { s.refresh = true }) }

// Offline runs nothing to discover tools: answers come from the cache.
func Offline() Option { return option(func(s *settings) { s.offline = true }) }

// DiscoveryTimeout bounds each discovery run; the default is 5 seconds.
// The config's discover.timeout_sec and a tool's discover_timeout_sec
// take precedence. A run that does not answer in time is remembered for
// 10 minutes, during which no resolution waits for it again ([Refresh]
// asks again).
func DiscoveryTimeout(d time.Duration) Option {
	return option(func(s *settings) { s.timeout = d })
}

// Progress is told of each program that discovery starts (a tool asked
// for its schema, an MCP server started to list its tools) as it starts,
// with a text that names it and its timeout ("tools/slow to describe
// itself (timeout 5s)"); done is called when it has answered or failed.
// strata's command line prints those it waits for over a second on a
// terminal. The text names files and settings: escape it for a terminal.
func Progress(f func(what string) (done func())) Option {
	return option(func(s *settings) { s.progress = f })
}

// CallTimeout bounds each run of a local tool by a call; the default is 60
// seconds. MCP tools have their server's tool_timeout_sec.
func CallTimeout(d time.Duration) Option { return option(func(s *settings) { s.callTime = d }) }

// UnknownEnv is what a <NAME>_ variable whose name reaches no key does:
// load.EnvError (the default), load.EnvWarn or load.EnvIgnore.
func UnknownEnv(p load.EnvPolicy) Option { return option(func(s *settings) { s.UnknownEnv = p }) }

// Provenance indexes, while loading, which layers set each key, for fast
// [Workspace.Explain] of many keys.
func Provenance() Option { return option(func(s *settings) { s.Provenance = true }) }

// Builtins declares the tools the host implements (for source = "builtin"),
// by name, and runs them.
func Builtins(tools map[string]resolve.Discovered, run func(ctx context.Context, pc protocol.Context) (protocol.Outcome, error)) Option {
	return option(func(s *settings) { s.builtins, s.builtin = tools, run })
}

// Ask answers a tool's question that the config does not answer (see
// call.Runner.Ask); without it, such a call ends with the question.
func Ask(f func(ctx context.Context, tool string, q protocol.Inquiry, target config.Target) (answer any, ok bool, err error)) Option {
	return option(func(s *settings) { s.ask = f })
}

// Confirm is asked before a tool whose run mode is "ask" or "edit" runs
// (see call.Runner.Confirm); without it, such calls are refused, but for
// Serve's, which ask the client's user through elicitation when the
// client can be asked. See [Unattended] for a host with nobody to ask.
func Confirm(f func(ctx context.Context, tool string, args json.RawMessage) (bool, error)) Option {
	return option(func(s *settings) { s.confirm = f })
}

// Unattended is the one choice of a host with no way to ask its user
// (a batch job, an agent that runs on its own): a tool whose run mode is
// "ask" (the default) or "edit" runs without asking, as one whose mode is
// "unattended" does; "skip" and every rule of a run policy still hold.
// Without
// it, and without [Confirm], a call of such a tool is refused: a
// *call.Refusal that names both fixes (run = "unattended" for the tool,
// or this option). [Workspace.Serve] then runs such calls without asking
// the client's user either.
func Unattended() Option {
	return option(func(s *settings) {
		s.confirm = func(context.Context, string, json.RawMessage) (bool, error) { return true, nil }
	})
}

// Input asks the user for the value of an input another client's file
// asks for (VS Code's ${input:id}), showing its description; a password
// must not be echoed, and no answer is kept beyond the open. Without it,
// such an input is an error that names it.
func Input(f func(ctx context.Context, id, description string, password bool) (string, error)) Option {
	return option(func(s *settings) { s.Input = f })
}

// Sampling answers the sampling requests (sampling/createMessage) of the
// MCP servers whose tools the host calls ([Workspace.Call]): the servers
// are told their client can sample, so those that offer tools only to
// such a client offer them (server-everything's trigger-sampling-request),
// and each request (during a call of a tool, or whenever the server
// sends one) is given to f with the server's name and its params as JSON
// (MCP's CreateMessageRequest params: messages, maxTokens, systemPrompt,
// modelPreferences, ...), and f's answer, a CreateMessageResult as JSON
// (role, content, model, stopReason), goes back to the server. JSON, so that a host built on any MCP SDK reads and
// writes them with its own types, as it answered them before strata.
// An error of f is the server's error, its text the reason the server is
// given. MCP asks that the user can see a request and refuse it before
// the model runs, and see the answer before the server does: f is where
// the host does that, as it did before. Without it, servers are told
// their client cannot sample, as before. [Workspace.Serve] relays the requests to the client it serves
// instead, which says whether it can sample.
func Sampling(f func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)) Option {
	return option(func(s *settings) { s.sampling = f })
}

// Elicitation answers the elicitation requests (elicitation/create) of the
// MCP servers whose tools the host calls, as [Sampling] answers theirs:
// the servers are told their client can be asked (form mode), and f is
// given the server's name and the request's params as JSON (MCP's
// ElicitRequest params: message, requestedSchema) and returns an
// ElicitResult as JSON (action accept, decline or cancel, and content).
// The host shows the message and the form to its user; strata checks
// nothing of the answer, which the server checks. Without it, servers are
// told their client cannot be asked, as before. [Workspace.Serve] relays
// the requests to the client it serves instead.
func Elicitation(f func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error)) Option {
	return option(func(s *settings) { s.elicitation = f })
}

// Limits bounds what every source holds and what tools answer (see
// codec.Limits); the default is load's.
func Limits(l codec.Limits) Option { return option(func(s *settings) { s.Limits = l }) }

// Toolset gives the model the tools of the tool set named name
// ([toolsets.<name>] in the config) rather than the set the config's
// toolset key names; "" gives every tool. strata's --toolset flag sets
// it. An MCP client of [Workspace.Serve] whose name a set's clients match
// gets that set unless this option is given.
func Toolset(name string) Option { return option(func(s *settings) { s.toolset = &name }) }

// ToolNames is how the host names the tools of MCP servers where the
// config sets no tool_names: a template of {server} (the server's name)
// and {tool} (the tool's name on the server), such as
// config.ServerNames ("{server}__{tool}", mcphost's) or
// config.ClaudeCodeNames ("mcp__{server}__{tool}"). A server's own
// tool_names, then the config's, take precedence, as over every default
// of the host. Under a scheme that holds {server}, tools of different
// servers never share a name; the config's [tools.<name>] keys name them
// as the catalog does (everything__echo). A scheme that is not one is
// an error of [Open].
func ToolNames(scheme config.NameScheme) Option {
	return option(func(s *settings) { s.names = scheme })
}
