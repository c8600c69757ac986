// Package cli is strata's command line: its grammar, and every command
// (config, merge, diff, schema over load; resolve, call, serve, trust,
// login and logout over the root's Workspace).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/kballard/go-shellquote"
	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/termtext"
	"github.com/strata-config/strata/trust"
)

// cli is the command line.
type cli struct {
	Version kong.VersionFlag `help:"Print strata's version (module version and VCS revision) and exit."`
	Config  configCmd        `cmd:"" help:"Print the final config from all sources: defaults, user, workspace and directory files, environment, --cfg."`
	Resolve resolveCmd       `cmd:"" help:"Print the resolved tool definitions, as strata's JSON or a vendor's."`
	Call    callCmd          `cmd:"" help:"Validate and run one resolved tool; print its outcome."`
	Serve   serveCmd         `cmd:"" help:"Serve the resolved tools as an MCP server over stdio, or over HTTP (--http)."`
	Lock    lockCmd          `cmd:"" help:"Lock what the model sees of each tool (strata.lock): a tool that changes later is held back until you accept it here; --diff shows the changes."`
	Doctor  doctorCmd        `cmd:"" help:"Start every configured MCP server, list its tools and time it; name the fix of each that fails (exit 1)."`
	Login   loginCmd         `cmd:"" help:"Sign in to a remote MCP server that needs it (MCP authorization), in your browser, and keep the sign-in; --list shows how each remote server is signed in to."`
	Logout  logoutCmd        `cmd:"" help:"Forget the sign-in to a remote MCP server (a server of the config, or its URL)."`
	Trust   trustCmd         `cmd:"" help:"Trust a workspace, exactly or with everything below it: let its own files apply and the programs they name run; pin a launch; list or forget what you trust."`
	Merge   mergeCmd         `cmd:"" help:"Merge layer files in order (first lowest) and print the merged layer."`
	Diff    diffCmd          `cmd:"" help:"Print the layer that turns FROM into TO; exit 1 when they differ."`
	Schema  schemaCmd        `cmd:"" help:"Print the JSON Schema of the config file, for editors."`
}

// env is what a command runs with.
type env struct {
	Ctx    context.Context
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// exitStatus ends a command with a status and no message.
type exitStatus int

func (e exitStatus) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// usageError is a problem with the command line (exit status 2).
type usageError struct{ error }

// usage makes err a problem with the command line.
func usage(err error) error { return usageError{err} }

type kongExit int

// Run runs the command line args and returns the exit status. The
// commands that start programs (or may: resolve, call, serve, trust) end
// their context on SIGINT and SIGTERM (see stopOnSignals); strata serve
// runs on one P when its stdin is a pipe (see oneProc).
//
// Everything written to stderr, and to stdout by every command but
// serve, goes through a [termtext.Writer]: servers' and tools' texts, and
// files' keys and values, reach them in output, warnings, errors and
// questions, and what a terminal would act on in them is shown escaped.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	stderr = termtext.NewWriter(stderr)
	parser, err := kong.New(grammar(args),
		kong.Name("strata"),
		kong.Description("Resolve the tool definitions an LLM application gives to a model."),
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": Version()},
	)
	if err != nil {
		fmt.Fprintf(stderr, "strata: %v\n", err)
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			k, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			code = int(k)
		}
	}()
	kctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "strata: %v; see %s --help\n", err, commandOf(err))
		return 2
	}
	if !strings.HasPrefix(kctx.Command(), "serve") {
		// What a command prints holds text that files and servers wrote
		// (names, descriptions, errors): it reaches the terminal through
		// the one escaping writer, as stderr does. JSON and TOML escape
		// such characters in their strings themselves (termtext.JSON,
		// tomltext), so they pass unchanged. strata serve's stdout is
		// its MCP client's, not a terminal.
		stdout = termtext.NewWriter(stdout)
	}
	e := &env{Ctx: ctx, Stdin: stdin, Stdout: stdout, Stderr: stderr}
	if err := kctx.Run(e); err != nil {
		return report(stderr, err)
	}
	return 0
}

// commandOf returns the command a parse error is in, for its help:
// "strata call", or "strata" before a command is named.
func commandOf(err error) string {
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if n := pe.Context.Selected(); n != nil {
			return n.FullPath()
		}
	}
	return "strata"
}

// Version is strata's version as the build recorded it: the module's
// version ("(devel)" for a build of a checkout), the VCS revision and
// whether the tree had changes, and the Go release.
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "strata (no build information)"
	}
	return versionOf(info)
}

// versionOf is the version info records.
func versionOf(info *debug.BuildInfo) string {
	v := "strata " + info.Main.Version
	var rev, at, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev != "" {
		v += " (" + rev + dirty
		if at != "" {
			v += ", " + at
		}
		v += ")"
	}
	return v + " " + info.GoVersion
}

// grammar returns what kong parses args into: a [cli], or, when args
// name a command and ask for no help, a struct of that command's field of
// cli alone. kong reflects over every flag of every command in its model,
// which costs a process about 3 ms from cold, more than running a small
// command; parsing and errors for the command named are the same either
// way, and help and mistyped commands get the whole model.
func grammar(args []string) any {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return &cli{}
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "--version" {
			return &cli{}
		}
	}
	t := reflect.TypeFor[cli]()
	for i := range t.NumField() {
		f := t.Field(i)
		if strings.ToLower(f.Name) == args[0] {
			return reflect.New(reflect.StructOf([]reflect.StructField{{Name: f.Name, Type: f.Type, Tag: f.Tag}})).Interface()
		}
	}
	return &cli{}
}

// report prints err, one line per problem, and returns the exit status.
// What a terminal would act on in the problems is shown escaped.
func report(stderr io.Writer, err error) int {
	if _, ok := stderr.(*termtext.Writer); !ok {
		stderr = termtext.NewWriter(stderr)
	}
	var ex exitStatus
	if errors.As(err, &ex) {
		return int(ex)
	}
	code := 1
	var ue usageError
	if errors.As(err, &ue) {
		code = 2
	}
	var ce *call.Refusal
	if errors.As(err, &ce) {
		for _, line := range ce.Lines() {
			fmt.Fprintf(stderr, "strata: %s\n", relativeText(oneLine(line)))
		}
		return code
	}
	for _, e := range bounded(err) {
		fmt.Fprintf(stderr, "strata: %s\n", line(e))
	}
	return code
}

// bounded returns the problems in err, as many as the default limit
// allows and one that counts the others: whatever made them, a flood of
// problems is not printed whole.
func bounded(err error) []*diag.Error {
	var c diag.Collector
	c.Add(err)
	return diag.All(c.Err())
}

// line renders a problem on one line, with paths relative to the working
// directory, quoting no more of a key or value than the default limit
// (the readers already cut what they quote; this keeps any other message
// short too).
func line(e *diag.Error) string {
	e = withStderr(repin(e))
	if filepath.IsAbs(e.Source) {
		// A directory as its source (the workspace's root) prints as
		// the paths in messages do: "." for the working directory.
		c := *e
		c.Source = rel(c.Source)
		e = &c
	}
	return limits.CutQuoted(relativeText(oneLine(e.Error())), limits.Quote)
}

// withStderr adds to e the last lines an MCP server wrote to its stderr
// when e is its failure: the local user's terminal shows them, where the
// error's own text, which a gateway's clients may get, never holds them.
func withStderr(e *diag.Error) *diag.Error {
	type stderrHolder interface {
		error
		ServerStderr() []string
	}
	var holder stderrHolder
	if !errors.As(e, &holder) {
		return e
	}
	text := mcpclient.StderrText(holder.ServerStderr())
	// The innermost that keeps the same lines says what the server did.
	for {
		var inner stderrHolder
		if !errors.As(errors.Unwrap(holder), &inner) || mcpclient.StderrText(inner.ServerStderr()) != text {
			break
		}
		holder = inner
	}
	if text == "" {
		return e
	}
	c := *e
	// Right after what the server did ("exited during its start (exit
	// status 1)"), where the message says it; else at the end.
	if i := strings.LastIndex(c.Msg, holder.Error()); i >= 0 {
		at := i + len(holder.Error())
		c.Msg = c.Msg[:at] + "; " + text + c.Msg[at:]
	} else {
		c.Msg += "; " + text
	}
	return &c
}

// repin names the fix of a launch that differs from its pin: strata trust
// --pin, once the user has checked what changed. Every problem printed
// (line) and doctor's fix of a server take it from here.
func repin(e *diag.Error) *diag.Error {
	if len(e.Path) == 0 || !errors.Is(e, trust.ErrChanged) {
		return e
	}
	c := *e
	c.Hint = "check what changed; if the change is yours, run strata trust --pin " + shellquote.Join(c.Key()) + " again"
	return &c
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ")), " ")
}
