// Package call runs the tools of a resolved catalog, the same way every
// time, whatever protocol they speak.
//
// A call is refused unless its tool is in the catalog (default-deny). Its
// arguments get the configured defaults and forced values, and are
// validated against the tool's resolved JSON Schema, every problem reported
// at its JSONPath. Then the tool runs: a JP command rendered with the tool
// context (action "run", the tool's options, the answers so far), a
// --describe executable given its arguments as one JSON argument, an MCP
// tools/call carrying the same context in _meta, or the host's builtin.
// Programs run in their own process group under a timeout and an output
// cap, with the one documented environment every program strata starts
// gets, and a pinned launch runs only as pinned, checked right before each
// run.
//
// Every call ends in one [protocol.Outcome]: success, error (transient or
// not, with a trace) or needs_input. A question whose answer the config
// fixes (questions.<id>.answer) is answered and the call retried without
// asking anyone; any other goes to [Runner].Ask, which may answer it (a
// terminal asks its user) or leave it to the caller (a question for the
// assistant goes back to the model), and the call ends with it.
package call

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/exe"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/trust"
)

// Defaults of a [Runner].
const (
	// defaultTimeout bounds a run of a local tool.
	defaultTimeout = 60 * time.Second
	// defaultMaxRounds bounds the runs of one call: the first and one per
	// question answered.
	defaultMaxRounds = 8
	// defaultMaxOutput caps what a local tool may write to stdout.
	defaultMaxOutput = 4 << 20
)

// Runner runs the tools of one catalog. Its methods may be called from
// several goroutines at once.
type Runner struct {
	// Catalog is what may run.
	Catalog *resolve.Catalog
	// Environ is the host's environment; nil is the process's. Programs get
	// the part of it that every program strata starts gets.
	Environ []string
	// Pins are the pinned launches, by config key (tools.<name>): a local
	// tool whose launch differs from its pin is not run.
	Pins map[string]trust.Pin
	// MCP calls the tools of MCP servers; nil fails MCP tools.
	MCP MCPCaller
	// Timeout bounds each run of a local tool; 0 is 60 seconds. MCP
	// tools have their server's tool_timeout_sec.
	Timeout time.Duration
	// MaxOutput caps a local tool's stdout; 0 is 4 MiB.
	MaxOutput int64
	// MaxRounds bounds the runs of one call; 0 is 8: the first
	// run and seven questions answered.
	MaxRounds int
	// Ask answers a question that the config does not answer, for its
	// target ("user" when the config does not say); ok false leaves it to
	// the caller: the call ends with the needs_input outcome. Nil leaves
	// every question to the caller.
	Ask func(ctx context.Context, tool string, q protocol.Inquiry, target config.Target) (answer any, ok bool, err error)
	// Confirm is asked before a tool whose run mode is "ask" or "edit"
	// runs (the default mode is "ask"); false declines the call. A host
	// whose user confirms elsewhere (an MCP client asks before it calls; a
	// command line is typed by its user) says yes. Nil refuses such calls:
	// a tool is never run unattended by omission.
	Confirm func(ctx context.Context, tool string, args json.RawMessage) (bool, error)
	// Builtin runs the host's builtin tools; nil has none.
	Builtin func(ctx context.Context, pc protocol.Context) (protocol.Outcome, error)
	// Admit, when not nil, adds to a call's decision what the host knows
	// of the tool beyond its definition: the tool set that admitted it,
	// its lock entry, the trust and pin of its launch. It may set the
	// outcome to one that does not run (a launch that differs from its
	// pin).
	Admit func(ctx context.Context, def resolve.Definition, d *Decision)
}

// Equal reports whether r and o are the same runner: a runner is a
// handle. It lets go-cmp compare values that hold runners.
func (r *Runner) Equal(o *Runner) bool { return r == o }

// MCPCaller calls tools of MCP servers for a [Runner].
type MCPCaller interface {
	// CallTool calls tool (its name on the server) of the MCP server named
	// server with args, a JSON object, and the _meta payload meta.
	CallTool(ctx context.Context, server, tool string, args json.RawMessage, meta map[string]any) (*protocol.MCPResult, error)
}

// Response is the outcome of a call.
type Response struct {
	protocol.Outcome
	// MCP is the server's result of an MCP tool that answered the MCP way
	// rather than with an Outcome: every content item, structured content
	// and all, for hosts that pass it on.
	MCP *protocol.MCPResult
	// Arguments are the arguments the tool ran with: the call's, with
	// defaults and forced values filled in, compact (keys keep their order
	// and numbers their text).
	Arguments json.RawMessage
	// Answers are the answers given to the tool's questions, by id.
	Answers map[string]any
	// Runs counts the runs of the tool, one more per question answered.
	Runs int
	// Decision is why the call ran, or did not (see [Runner.Decide]).
	Decision *Decision
}

// Option changes one call; [Answers] makes one.
type Option interface{ apply(*options) }

type options struct {
	answers map[string]any
	confirm func(ctx context.Context, tool string, args json.RawMessage) (bool, error)
}

// confirmOption is the Option of [Confirm].
type confirmOption func(ctx context.Context, tool string, args json.RawMessage) (bool, error)

func (c confirmOption) apply(o *options) { o.confirm = c }

// Confirm confirms this call, when its tool's run mode is "ask" or
// "edit", with confirm instead of [Runner].Confirm: an MCP server asks
// the client that made the call, for example. confirm is given the
// arguments the tool would run with (defaults and forced values filled
// in); an error it returns ends the call with that error.
func Confirm(confirm func(ctx context.Context, tool string, args json.RawMessage) (bool, error)) Option {
	return confirmOption(confirm)
}

// answersOption is the Option of [Answers].
type answersOption map[string]any

func (a answersOption) apply(o *options) {
	for k, v := range a {
		o.answers[k] = v
	}
}

// Answers gives a call the answers to questions its tool asked before, by
// question id: a call retried after needs_input.
func Answers(answers map[string]any) Option { return answersOption(answers) }

// Call runs the tool name with args, a JSON object (empty: no arguments).
// The error is an [*Refusal] when the call is refused (an unknown tool,
// invalid arguments, a tool that keeps asking, a call Confirm declined:
// errors.Is(err, [ErrDeclined])), the error of Ask or
// Confirm, or the context's error when it is done; a tool that fails
// gives an error outcome, not an error.
func (r *Runner) Call(ctx context.Context, name string, args json.RawMessage, opts ...Option) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o := options{answers: map[string]any{}, confirm: r.Confirm}
	for _, opt := range opts {
		opt.apply(&o)
	}
	d, args, argMap, err := r.decide(ctx, name, args)
	if err != nil {
		return nil, err
	}
	def, _ := r.Catalog.Tool(name)
	ctx = context.WithValue(ctx, decisionKey{}, d)
	res := &Response{Arguments: args, Answers: o.answers, Decision: d}
	switch d.Outcome {
	case VerdictUnknown:
		e := r.unknown(name)
		e.Decision = d
		return nil, e
	case VerdictRefused:
		e := &Refusal{Tool: name, Msg: "invalid arguments", Decision: d}
		for _, rs := range d.Reasons {
			if rs.Kind == "argument" && rs.Key != "" {
				e.Problems = append(e.Problems, Problem{Path: rs.Key, Msg: rs.Detail})
			} else if rs.Kind == "argument" {
				e.Msg = rs.Detail
			}
		}
		return nil, e
	case VerdictSkip:
		why := "the config says skip"
		if rule := d.DecidedBy("run"); rule != nil {
			why += " (" + rule.Key
			if rule.Reason != "" {
				why += ": " + rule.Reason
			}
			why += ")"
		}
		for _, rs := range d.Reasons {
			if rs.Kind == "policy" && strings.HasSuffix(rs.Key, ".run") {
				why += "; the policy " + rs.Key + " (" + rs.At + ") allows it no other mode"
				if rs.Reason != "" {
					why += ": " + rs.Reason
				}
			}
		}
		res.Outcome = protocol.Outcome{Type: protocol.Failure, Message: name + " was not run: " + why}
		return res, nil
	case VerdictAsk:
		if o.confirm == nil {
			return nil, &Refusal{Tool: name, Msg: fmt.Sprintf("its run mode is %q, and the host has no way to ask", d.Run), Decision: d,
				Hint: `set run = "unattended" for the tool, or give the host a way to ask: the option strata.Confirm (call.Runner.Confirm); a host with nobody to ask chooses strata.Unattended`}
		}
		ok, err := o.confirm(ctx, name, args)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &Refusal{Tool: name, Msg: "the user declined to run it", Decision: d, Declined: true}
		}
	case VerdictRun:
	default: // what the host refused (a launch that differs from its pin, say)
		res.Outcome = protocol.Outcome{Type: protocol.Failure, Message: name + " was not run: " + d.Message}
		return res, nil
	}
	maxRounds := r.MaxRounds
	if maxRounds <= 0 {
		maxRounds = defaultMaxRounds
	}
	asked := map[string]int{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Runs++
		upstream := def.Exec.Tool
		if upstream == "" {
			upstream = name
		}
		pc := protocol.NewContext(protocol.ActionRun, def.Exec.Root, upstream, argMap, res.Answers, def.Options)
		out, mcpRes, err := r.run(ctx, def, pc, args)
		if err != nil {
			return nil, err
		}
		res.Outcome, res.MCP = out, mcpRes
		if out.Type != protocol.NeedsInput {
			return res, nil
		}
		q := *out.Question
		asked[q.ID]++
		if res.Runs >= maxRounds {
			return nil, &Refusal{Tool: name, Msg: fmt.Sprintf("the tool kept asking: %s, the question %s asked %s; the answers given do not satisfy it", diag.Counted(res.Runs, "run"), q.ID, diag.Counted(asked[q.ID], "time"))}
		}
		cq := def.Questions[q.ID]
		if cq.Answer != nil {
			res.Answers[q.ID] = cq.Answer
			continue
		}
		if r.Ask == nil {
			return res, nil
		}
		target := cq.Target
		if target == "" {
			target = config.TargetUser
		}
		answer, ok, err := r.Ask(ctx, name, q, target)
		if err != nil {
			return nil, err
		}
		if !ok {
			return res, nil
		}
		res.Answers[q.ID] = answer
	}
}

// unknown is the error of a call of a tool that is not in the catalog.
func (r *Runner) unknown(name string) *Refusal {
	names := make([]string, len(r.Catalog.Tools))
	for i, d := range r.Catalog.Tools {
		names[i] = d.Name
	}
	e := &Refusal{Tool: name, Msg: "no such tool in the catalog"}
	if s := suggest.Closest(name, names); s != "" {
		e.Hint = "did you mean " + s + "?"
	}
	return e
}

// run runs the tool once.
func (r *Runner) run(ctx context.Context, def resolve.Definition, pc protocol.Context, args json.RawMessage) (protocol.Outcome, *protocol.MCPResult, error) {
	switch def.Exec.Kind {
	case resolve.ExecJP, resolve.ExecDescribe:
		out, err := r.runLocal(ctx, def, pc, args)
		return out, nil, err
	case resolve.ExecMCP:
		return r.runMCP(ctx, def, pc, args)
	case resolve.ExecBuiltin:
		if r.Builtin == nil {
			return protocol.Outcome{Type: protocol.Failure, Message: def.Name + " is a builtin tool, which the host runs; this host has none"}, nil, nil
		}
		out, err := r.Builtin(ctx, pc)
		if full := out.Result; full != nil && err == nil {
			// A whole MCP result: passed on as an MCP server's is.
			out, _ = protocol.FromMCP(*full)
			return out, full, nil
		}
		out.Result = nil
		return out, nil, err
	}
	return protocol.Outcome{}, nil, fmt.Errorf("%s: unknown exec kind %q", def.Name, def.Exec.Kind)
}

// runLocal runs a JP or --describe tool.
func (r *Runner) runLocal(ctx context.Context, def resolve.Definition, pc protocol.Context, args json.RawMessage) (protocol.Outcome, error) {
	argv, err := commandLine(def.Exec, pc, args)
	var refused *Refusal
	if errors.As(err, &refused) {
		refused.Tool = def.Name
		return protocol.Outcome{}, refused
	}
	if err != nil {
		return protocol.Outcome{Type: protocol.Failure, Message: def.Name + ": " + err.Error()}, nil
	}
	program := exe.LookPath(argv[0], r.environ())
	ws := untrusted.New(def.Exec.Untrusted, "")
	if err := ws.Check(untrusted.Launch{Program: program, Args: argv[1:], Dir: def.Exec.Dir, Private: def.Exec.Private, Env: trust.LaunchEnv(def.Exec.Env, def.Exec.EnvVars), Interpreter: exe.IsInterpreter(program)}); err != nil {
		// The last guard: what a call renders (a template, a relative
		// program) may resolve into the untrusted workspace.
		msg := def.Name + " was not run: " + err.Error()
		var r *untrusted.Refused
		if errors.As(err, &r) {
			msg += "; " + r.Hint()
		}
		return protocol.Outcome{Type: protocol.Failure, Message: msg}, nil
	}
	if pin, ok := r.Pins[def.Exec.Key]; ok {
		// A --describe tool's command has no arguments of its own: each
		// call gives it one JSON argument.
		launch := trust.Launch{Program: program, Args: def.Exec.Command.Args, Env: trust.LaunchEnv(def.Exec.Env, def.Exec.EnvVars), Dir: def.Exec.Dir}
		if err := pin.Check(launch); err != nil {
			return protocol.Outcome{Type: protocol.Failure, Message: def.Name + " was not run: " + err.Error() + "; check what changed, and if the change is yours, pin " + def.Exec.Key + " again"}, nil
		}
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = defaultTimeout
	}
	maxOut := r.MaxOutput
	if maxOut <= 0 {
		maxOut = defaultMaxOutput
	}
	res, err := procs.Run(ctx, procs.Invocation{
		Program: argv[0], Args: argv[1:], Dir: def.Exec.Dir, Private: def.Exec.Private, Env: procs.Env(r.environ(), def.Exec.Env, def.Exec.EnvVars),
		Timeout: timeout, MaxStdout: maxOut,
	})
	var pe *procs.Error
	if err != nil && !errors.As(err, &pe) {
		return protocol.Outcome{}, err
	}
	if pe != nil {
		switch pe.Kind {
		case procs.KindCanceled:
			return protocol.Outcome{}, ctx.Err()
		case procs.KindTimeout:
			return protocol.Outcome{Type: protocol.Failure, Transient: true, Message: fmt.Sprintf("%s: no answer within %v; it was stopped", def.Name, timeout), Trace: trace(res.Stderr)}, nil
		case procs.KindStart:
			return protocol.Outcome{Type: protocol.Failure, Message: def.Name + ": cannot run " + pe.Error()}, nil
		case procs.KindOverflow:
			return protocol.Outcome{Type: protocol.Failure, Message: def.Name + ": " + pe.Detail, Trace: trace(res.Stderr)}, nil
		}
	}
	if def.Exec.Kind == resolve.ExecJP {
		// A JP tool answers with an Outcome, whatever its exit status.
		if out, perr := protocol.ParseOutcome(res.Stdout); perr == nil {
			return out, nil
		}
	}
	if pe != nil {
		msg := def.Name + ": " + pe.Detail
		if s := strings.TrimSpace(string(res.Stdout)); s != "" && len(res.Stderr) == 0 {
			msg += ": " + firstLine(s)
		}
		return protocol.Outcome{Type: protocol.Failure, Message: msg, Trace: trace(res.Stderr)}, nil
	}
	return protocol.Outcome{Type: protocol.Success, Content: string(res.Stdout)}, nil
}

// runMCP calls an MCP tool, with the tool context in _meta.
func (r *Runner) runMCP(ctx context.Context, def resolve.Definition, pc protocol.Context, args json.RawMessage) (protocol.Outcome, *protocol.MCPResult, error) {
	if r.MCP == nil {
		return protocol.Outcome{Type: protocol.Failure, Message: def.Name + " is an MCP tool, and this host calls no MCP servers"}, nil, nil
	}
	res, err := r.MCP.CallTool(ctx, def.Exec.Server, def.Exec.Tool, args, pc.Meta())
	if err != nil {
		if ctx.Err() != nil {
			return protocol.Outcome{}, nil, ctx.Err()
		}
		return protocol.Outcome{Type: protocol.Failure, Transient: true, Message: def.Name + ": " + err.Error()}, nil, nil
	}
	out, bridged := protocol.FromMCP(*res)
	if bridged {
		return out, nil, nil
	}
	return out, res, nil
}

// environ is the host's environment: the runner's, or the process's.
func (r *Runner) environ() []string {
	if r.Environ != nil {
		return r.Environ
	}
	return os.Environ()
}

// trace keeps the last lines of a tool's stderr, for an error outcome.
func trace(stderr []byte) []string {
	const keep = 20
	s := strings.TrimRight(string(stderr), "\n")
	if s == "" {
		return nil
	}
	lines := strings.Split(s, "\n")
	if len(lines) > keep {
		lines = append([]string{"(" + diag.Counted(len(lines)-keep, "line") + " before)"}, lines[len(lines)-keep:]...)
	}
	return lines
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// ErrDeclined is what a call that the host's Confirm declined is:
// errors.Is(err, ErrDeclined) holds for its [*Refusal], and for no other.
var ErrDeclined = errors.New("declined")

// Refusal is a call refused: an unknown tool, invalid arguments, a tool
// that keeps asking, or a call the user declined ([Refusal.Declined]).
type Refusal struct {
	// Tool is the tool called.
	Tool string
	// Msg says what is wrong.
	Msg string
	// Hint suggests a fix, such as "did you mean read_file?".
	Hint string
	// Problems are the problems of invalid arguments, each at its JSONPath.
	Problems []Problem
	// Decision is the call's decision, when one was made: what refused it.
	Decision *Decision
	// Declined is true when the host's Confirm said no: the tool did not
	// run because its user chose so, not because anything is wrong.
	Declined bool
}

// Is reports whether target is [ErrDeclined] and the call was declined.
func (e *Refusal) Is(target error) bool { return target == ErrDeclined && e.Declined }

// Problem is one way arguments fail a tool's schema: where, as a JSONPath
// ($ for the arguments, $.a.b[0] inside them), and what is wrong.
type Problem struct {
	Path string
	Msg  string
}

// String returns "$.path: what is wrong".
func (p Problem) String() string { return p.Path + ": " + p.Msg }

// Error returns the problem on one line: "call read: invalid arguments:
// $.path: missing property; $.n: must be >= 0".
func (e *Refusal) Error() string {
	var b strings.Builder
	b.WriteString("call " + e.Tool + ": " + e.Msg)
	for i, p := range e.Problems {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	if e.Hint != "" {
		b.WriteString("; " + e.Hint)
	}
	return b.String()
}

// Lines returns the problem for people, one line each: the first says what
// is wrong, the others give each problem of the arguments.
func (e *Refusal) Lines() []string {
	first := "call " + e.Tool + ": " + e.Msg
	if e.Hint != "" {
		first += "; " + e.Hint
	}
	lines := []string{first}
	for _, p := range e.Problems {
		lines = append(lines, p.String())
	}
	return lines
}
