package cli

import (
	"os"
	"time"

	"github.com/strata-config/strata/internal/workspace"
	"github.com/strata-config/strata/trust"
)

// Programs runs the commands that start programs, or may (resolve, call,
// serve), and trust, which reads the launches of MCP servers.
type Programs interface {
	Resolve(e *Env, c *ResolveCmd) error
	Call(e *Env, c *CallCmd) error
	Serve(e *Env, c *ServeCmd) error
	Trust(e *Env, c *TrustCmd) error
}

// OpenFlags are the flags of the commands that open a workspace.
type OpenFlags struct {
	Root  string   `help:"Directory to load from, as if strata ran there (default: the current one)." placeholder:"DIR"`
	Cfg   []string `name:"cfg" placeholder:"X" sep:"none" help:"A layer on top: a file, key=value, key:=json, key+=value, key:+=json, a JSON object, or NONE to drop the layers below; repeatable."`
	Trust bool     `help:"Trust this workspace for this run: let its own files apply and its programs run."`
}

// Settings returns what loading is given for the flags: strata's own
// files, variables and trust list, and the terminal of e for inputs.
func (f OpenFlags) Settings(e *Env) workspace.Settings {
	environ := os.Environ()
	return workspace.Settings{
		Name: "strata", Dir: f.Root, Environ: environ, Cfg: f.Cfg,
		Store:     &trust.Store{Path: trust.DefaultPath("strata", environ)},
		TrustHint: "to apply them, run strata trust there, or pass --trust",
		TrustOnce: f.Trust,
		Input:     TerminalInput(e),
	}
}

// ResolveFlags are the flags of the commands that resolve a workspace.
type ResolveFlags struct {
	OpenFlags `embed:""`
	Refresh   bool `help:"Ask every tool again instead of using cached answers."`
	Offline   bool `help:"Run nothing: use cached answers only."`
}

// ResolveCmd is strata resolve.
type ResolveCmd struct {
	ResolveFlags `embed:""`
	Export       string `enum:"strata,openai,anthropic,mcp" default:"strata" help:"Output format: strata, openai, anthropic or mcp."`
}

func (c *ResolveCmd) Run(e *Env) error { return e.Programs.Resolve(e, c) }

// CallCmd is strata call.
type CallCmd struct {
	ResolveFlags `embed:""`
	Answer       []string `placeholder:"ID=VALUE" help:"Answer the tool's question ID with VALUE (JSON, or else a string); repeatable."`
	Ask          bool     `help:"Ask questions on stdin even when it is not a terminal."`
	Name         string   `arg:"" help:"The tool to call."`
	Args         string   `arg:"" optional:"" help:"Its arguments: a JSON object, or - to read it from stdin (default: {})."`
}

func (c *CallCmd) Run(e *Env) error { return e.Programs.Call(e, c) }

// ServeCmd is strata serve.
type ServeCmd struct {
	ResolveFlags `embed:""`
	Timeout      time.Duration `default:"60s" help:"Bound each run of a local tool (MCP tools have their server's tool_timeout_sec)."`
}

func (c *ServeCmd) Run(e *Env) error { return e.Programs.Serve(e, c) }

// TrustCmd is strata trust.
type TrustCmd struct {
	Root string `help:"The workspace to trust (default: the one around the current directory)." placeholder:"DIR"`
	Pin  string `help:"Pin the launch of KEY (tools.<name> or mcp_servers.<name>): it runs only as it is now, checked before every run." placeholder:"KEY"`
}

func (c *TrustCmd) Run(e *Env) error { return e.Programs.Trust(e, c) }
