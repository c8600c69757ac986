package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/policy"
	"github.com/strata-config/strata/trust"
)

// OpenFlags are the flags of the commands that open a workspace.
type OpenFlags struct {
	Root  string   `help:"Directory to load from, as if strata ran there (default: the current one)." placeholder:"DIR"`
	Cfg   []string `name:"cfg" placeholder:"X" sep:"none" help:"A layer on top: a file (strata's, or another client's MCP servers: .mcp.json, claude_desktop_config.json, .cursor/mcp.json, .vscode/mcp.json, codex:PATH for Codex's config.toml), key=value, key:=json, key+=value, key:+=json, a JSON object, or NONE to drop the layers below; repeatable."`
	Trust bool     `help:"Trust this workspace for this run: let its own files apply and its programs run (not those of a repository nested in it)."`
	// Policy names policy files besides /etc/strata/policy.toml (read
	// when it exists); each only narrows what the others allow.
	Policy []string `name:"policy" placeholder:"FILE" sep:"none" help:"A policy file, besides /etc/strata/policy.toml and those STRATA_POLICY names (a list, as PATH): constraints every layer is clamped to (allowed run and result modes, parameter bounds, tools and servers allowed or denied); never one inside the workspace; repeatable. Each only narrows what the others allow."`
	Strict bool     `help:"Fail where a value is outside a policy, rather than fall back to the nearest value it allows."`
	// partial goes on when a file the command line names is not applied
	// (untrusted): resolve --partial.
	partial bool
}

// Validate checks that --root names a directory.
func (f OpenFlags) Validate() error { return checkRoot(f.Root) }

// checkRoot reports a --root that is not an existing directory; "" is the
// working directory.
func checkRoot(root string) error {
	if root == "" {
		return nil
	}
	info, err := os.Stat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usage(errors.New("--root " + root + ": no such directory"))
	case err != nil:
		return usage(errors.New("--root " + root + ": " + unwrapPath(err).Error()))
	case !info.IsDir():
		return usage(errors.New("--root " + root + ": not a directory"))
	}
	return nil
}

// unwrapPath drops the path from an *fs.PathError, which the message
// names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// app returns what loading is given for the flags: strata's own files,
// variables, model and trust list, and the terminal of e for inputs.
func (f OpenFlags) app(e *env) load.App[config.Partial, config.Config] {
	environ := os.Environ()
	return load.App[config.Partial, config.Config]{
		Name: "strata", Defaults: config.Default(), Dir: f.Root, Environ: environ, Cfg: f.Cfg, MCPServers: partial.Path{"mcp_servers"},
		TrustStore:     &trust.Store{Path: trust.DefaultPath("strata", environ)},
		TrustHint:      trustHint,
		TrustWorkspace: f.Trust,
		Input:          terminalInput(e),
		// A stray STRATA_ variable (STRATA_DEBUG=1) stops no command.
		UnknownEnv: load.EnvWarn,
		// STRATA_POLICY names a policy file (--policy), not a key.
		HostEnv: []string{"STRATA_POLICY"},
	}
}

// policies are the policy files of the flags: the system's, when it
// exists, those STRATA_POLICY names, and each --policy. Each adds to
// the others (a policy only narrows), so that no flag or variable
// drops the system's.
func (f OpenFlags) policies() []policy.File {
	files := []policy.File{{Path: policy.SystemPath, Optional: true}}
	for _, p := range filepath.SplitList(os.Getenv("STRATA_POLICY")) {
		if p != "" {
			files = append(files, policy.File{Path: p})
		}
	}
	for _, p := range f.Policy {
		files = append(files, policy.File{Path: p})
	}
	return files
}

// trustHint says how to apply the files of u with strata trust, naming
// the directory to trust.
func trustHint(u load.Untrusted) string {
	root := shellquote.Join(rel(u.Dir))
	wd, _ := filepath.Abs(".")
	apply := "to apply them"
	if len(u.Files) == 0 {
		apply = "to start it there" // a program, which starts elsewhere until then
	}
	switch {
	case u.Nested:
		return apply + ", trust that repository and everything below it: run strata trust --root " + root + " --recursive"
	case u.Outside && u.Once:
		// The working directory: strata trust records nothing outside a
		// workspace unless --root names it.
		return apply + ", run strata trust --root " + root + ", or pass --trust"
	case u.Outside:
		return "to apply it, run strata trust --root " + root + " (that directory's file alone), or make a .strata/ directory at the project's root and trust that"
	case isWithin(wd, u.Dir):
		return apply + ", run strata trust, or pass --trust"
	}
	return apply + ", run strata trust --root " + root + ", or pass --trust"
}

// isWithin reports whether dir is top or below it.
func isWithin(dir, top string) bool {
	r, err := filepath.Rel(top, dir)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// ResolveFlags are the flags of the commands that resolve a workspace.
type ResolveFlags struct {
	OpenFlags `embed:""`
	Refresh   bool   `help:"Ask every tool again instead of using cached answers."`
	Offline   bool   `help:"Run nothing: use cached answers only."`
	Toolset   string `help:"Give the model the tools of the tool set NAME ([toolsets.NAME]), not those the toolset key (or STRATA_TOOLSET) selects." placeholder:"NAME"`
	Verbose   bool   `help:"Warn also of settings that apply to no tool here (a tool of your user file that this workspace lacks, say)."`
}

// resolveCmd is strata resolve.
type resolveCmd struct {
	ResolveFlags `embed:""`
	Export       string `enum:"strata,openai,anthropic,mcp" default:"strata" help:"Output dialect: strata, openai, anthropic or mcp."`
	Stats        bool   `help:"Print what each tool's definition costs in the export's dialect (o200k_base tokens), per tool, per server and in total, instead of the definitions."`
	JSON         bool   `name:"json" help:"With --stats: print the counts as JSON."`
	Partial      bool   `help:"When something fails (a server that does not start, a bad override, a file named with --cfg that is not trusted), print what resolved anyway; the exit status is 1 still. Without it a run that fails prints nothing on stdout."`
	Explain      string `help:"Print every field of TOOL's final definition and where it came from, whether the tool set holds it, how it loads and what it costs, instead of the catalog." placeholder:"TOOL"`
	// check is strata config --check: every warning, and a count of the
	// tools instead of their definitions.
	check bool
}

// Validate checks that --json goes with --stats.
func (c *resolveCmd) Validate() error {
	if c.JSON && !c.Stats {
		return usage(errors.New("--json goes with --stats (resolve prints JSON already)"))
	}
	return c.ResolveFlags.Validate()
}

// callCmd is strata call.
type callCmd struct {
	ResolveFlags `embed:""`
	Answer       []string `placeholder:"ID=VALUE" help:"Answer the tool's question ID with VALUE (JSON, or else a string); repeatable."`
	Ask          bool     `help:"Ask questions, whether to run a tool whose run mode is ask, and an MCP server's questions (its elicitation forms), on stdin even when it is not a terminal."`
	Yes          bool     `short:"y" help:"Run a tool whose run mode is ask or edit without asking (without a terminal, such a tool runs only with --yes)."`
	DryRun       bool     `name:"dry-run" help:"Run nothing: print the call's decision as JSON (the rule that decides, where it is written and why; the bounds that refuse an argument; the tool set, lock, trust and pin), and exit with its outcome's status: 0 run, 3 ask, 4 skip, 5 refused, 6 held, 7 left-out, 8 unknown, 9 pin-changed."`
	Name         string   `arg:"" help:"The tool to call."`
	Args         string   `arg:"" optional:"" help:"Its arguments: a JSON object, or - to read it from stdin (default: {})."`
}

// Help says what run = "ask" means for strata call.
func (c *callCmd) Help() string {
	return `A tool whose run mode is "ask" (the default) or "edit" runs once you answer y to the question on the terminal, which shows the tool and its arguments; without a terminal it runs only with --yes. A tool with run = "unattended" runs without asking; run = "skip" never runs.`
}

// doctorCmd is strata doctor.
type doctorCmd struct {
	OpenFlags `embed:""`
}

// serveCmd is strata serve.
type serveCmd struct {
	ResolveFlags `embed:""`
	Timeout      time.Duration `default:"60s" help:"Bound each run of a local tool (MCP tools have their server's tool_timeout_sec)."`
	HTTP         string        `name:"http" help:"Serve over streamable HTTP on ADDR (host:port; loopback unless --allow-remote), at /mcp, to many clients at once, instead of stdio." placeholder:"ADDR"`
	TokenFile    string        `help:"With --http: the file whose first line is the bearer token clients must send (default: one strata makes and keeps in the user's cache directory, mode 0600)." placeholder:"FILE" type:"path"`
	NoToken      bool          `help:"With --http on a loopback address: take requests without a token (any program of this machine may then call; for test suites that cannot send one)."`
	AllowRemote  bool          `help:"With --http: allow an ADDR that is not loopback (other machines can then reach it; put TLS in front)."`
	AllowHost    []string      `help:"With --http: a host name clients may reach strata by (the Host header), besides the loopback names; repeatable." placeholder:"HOST"`
	CallLog      string        `help:"With --http: append a JSON line for every tool call to FILE (- for stderr): time, client, tool, server, duration_ms, outcome, and the call's decision (what decided it, without the arguments)." placeholder:"FILE"`
	LogArguments bool          `help:"With --call-log: log the calls' arguments too (they may hold what users typed, or secrets)."`
	AllowOrigin  []string      `help:"With --http: a browser origin (scheme://host:port) allowed to call, besides strata's own; repeatable." placeholder:"ORIGIN"`
}

// Help says what run = "ask" means for strata serve.
func (c *serveCmd) Help() string {
	return `A tool whose run mode is "ask" (the default) or "edit" runs once the client's user confirms it, asked through MCP elicitation; a client that declared no elicitation gets an error result instead, which says so. For tools the client's own approval is enough for, set run = "unattended" (under [tools.'*'] for every tool).`
}

// trustCmd is strata trust.
type trustCmd struct {
	Root      string `help:"The workspace to trust: the one around DIR (default: around the current directory); outside any workspace, the repository around DIR (the nearest .git), else DIR itself alone: its .strata.toml, and the files in it named while strata runs there." placeholder:"DIR"`
	Recursive bool   `xor:"action" help:"Trust the directory (the workspace root, or DIR itself) and everything below it: every workspace, directory file and nested repository there, present and future. Needed for your home directory or /."`
	Pin       string `xor:"action" help:"Pin the launch of KEY (tools.<name>, a configured or discovered tool, or mcp_servers.<name>): it runs only as it is now, checked before every run." placeholder:"KEY"`
	List      bool   `xor:"action" help:"List what you trust: each directory (recursive ones marked) and each pin."`
	Forget    string `xor:"action" help:"Stop trusting DIR: remove its entry and the pins of the launches that start there." placeholder:"DIR"`
}

// Validate checks that --root names a directory, and is not given with
// --list or --forget.
func (c *trustCmd) Validate() error {
	if c.Root != "" && (c.List || c.Forget != "") {
		return usage(errors.New("--root names a directory to trust; --list and --forget take none"))
	}
	return checkRoot(c.Root)
}

// lockCmd is strata lock.
type lockCmd struct {
	ResolveFlags `embed:""`
	Diff         bool `help:"Print what changed since the lock was written, field by field, and write nothing; exit 1 when something did."`
	User         bool `help:"The user's lock, beside the user's config file, rather than the workspace's."`
}
