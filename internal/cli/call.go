package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/termtext"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/protocol"
)

// Run runs strata call.
func (c *callCmd) Run(e *env) error {
	e, stop := stopOnSignals(e)
	defer stop()
	answers, err := parseAnswers(c.Answer)
	if err != nil {
		return err
	}
	args := json.RawMessage(c.Args)
	in := bufio.NewReader(e.Stdin)
	if c.Args == "-" {
		b, err := io.ReadAll(in)
		if err != nil {
			return err
		}
		args = b
	}
	terminal := isTerminal(e.Stdin)
	interactive := c.Ask || terminal
	ask := func(_ context.Context, tool string, q protocol.Inquiry, _ config.Target) (any, bool, error) {
		if !interactive {
			return nil, false, &diag.Error{Code: diag.CodeUsage, Msg: fmt.Sprintf("%s asks %s: %s", tool, q.ID, questionText(q)),
				Hint: fmt.Sprintf("answer with --answer %s=VALUE, or run strata call on a terminal", q.ID)}
		}
		a, err := prompt(e.Stderr, in, !terminal, tool, q)
		return a, err == nil, err
	}
	confirm := func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
		switch {
		case c.Yes:
			return true, nil
		case !interactive:
			return false, &diag.Error{Code: diag.CodeRefused, Msg: fmt.Sprintf("call %s: not run: %s, so strata asks first, and stdin is not a terminal", tool, askedBy(call.DecisionOf(ctx))),
				Hint: fmt.Sprintf(`pass --yes to run it, or set run = "unattended" under [tools.%s] (or a rule that says unattended before the one that asks)`, tomltext.Key(tool))}
		}
		return confirmRun(e.Stderr, in, !terminal, tool, args)
	}
	opts := []strata.Option{strata.Ask(ask), strata.Confirm(confirm)}
	if interactive {
		// The servers called may ask the user too (elicitation, form
		// mode): on the terminal, or on stdin with --ask.
		opts = append(opts, strata.Elicitation(elicitForm(e.Stderr, in, !terminal)))
	}
	w, err := openResolve(e, c.ResolveFlags, opts...)
	if err != nil {
		return err
	}
	defer w.Close()
	if c.DryRun {
		return dryRun(e, w, c.Name, args)
	}
	// Only what the tool needs is discovered: another tool that hangs
	// does not hold the call up.
	r, err := w.Runner(e.Ctx, c.Name)
	if r == nil {
		return err
	}
	var askHint string // why a tool may be missing, when it is
	if _, ok := r.Catalog.Tool(c.Name); !ok {
		if held := heldBack(e, w, c.Name); held != nil {
			return held
		}
		if err != nil {
			return err // the tool may be among those that failed
		}
		if d, derr := w.Decide(e.Ctx, c.Name, args); derr == nil && d.Code == diag.CodeClamped {
			// A policy's tool list leaves it out.
			return &diag.Error{Code: diag.CodeClamped, Msg: "call " + c.Name + ": not run: " + d.Message, Hint: "strata call --dry-run shows the decision; the policy decides this"}
		}
		if t, configured := w.Model().Tools.Effective(c.Name); configured {
			if !t.Enabled() {
				return &diag.Error{Code: diag.CodeLeftOut, Msg: fmt.Sprintf("call %s: the tool is not enabled", c.Name), Hint: "set enable = true for it"}
			}
			var why diag.Errors
			for _, w := range r.Catalog.Warnings {
				if partial.Path(w.Path).HasPrefix(partial.Path{"tools", c.Name}) {
					why = append(why, w)
				}
			}
			warn(e, why) // why it did not
			if len(r.Catalog.Warnings) > 0 {
				return &diag.Error{Code: diag.CodeNotFound, Msg: fmt.Sprintf("call %s: the tool did not resolve; see the warnings above", c.Name)}
			}
			return &diag.Error{Code: diag.CodeNotFound, Msg: fmt.Sprintf("call %s: the tool did not resolve", c.Name)}
		}
		// A server may list a tool only to a client it can ask.
		if !interactive && len(w.Model().MCPServers) > 0 {
			askHint = "an MCP server may offer a tool only to a client it can ask (elicitation): strata call on a terminal, or with --ask, tells servers it can be asked"
		}
		if !w.Trusted() {
			hint := "the workspace's own files do not apply: it is not trusted (strata trust, or --trust)"
			if askHint != "" {
				hint += "; " + askHint
			}
			return &diag.Error{Code: diag.CodeNotFound, Msg: fmt.Sprintf("call %s: no such tool in the catalog", c.Name), Hint: hint}
		}
	}
	warn(e, diag.All(err))
	warnVerbose(e, r.Catalog.Warnings, c.Verbose)
	res, err := r.Call(e.Ctx, c.Name, args, call.Answers(answers))
	if refusal := (*call.Refusal)(nil); askHint != "" && errors.As(err, &refusal) && refusal.Hint == "" {
		refusal.Hint = askHint // no name is close: the tool may be one a server keeps back
	}
	if errors.Is(err, call.ErrDeclined) {
		// The user said no: printed as the outcome a tool that failed
		// gives, with its exit status.
		res, err = &call.Response{Outcome: protocol.Outcome{Type: protocol.Failure, Message: "the user declined to run " + c.Name}}, nil
	}
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(res.Outcome, "", "  ")
	if err != nil {
		return err
	}
	// What the tool said is data: printed, it is escaped where a terminal
	// would act on it (JSON leaves C1 controls and bidirectional
	// formatting raw).
	if _, err := fmt.Fprintf(e.Stdout, "%s\n", termtext.JSON(b)); err != nil {
		return err
	}
	if d := res.Decision; d != nil && d.Outcome == call.VerdictSkip {
		return &diag.Error{Code: diag.CodeSkipped, Msg: fmt.Sprintf("call %s: not run: %s", c.Name, decidedBy(d, "run")),
			Hint: "strata call --dry-run shows the decision; change the rule to run it"}
	}
	if res.Type != protocol.Success {
		return exitStatus(1)
	}
	return nil
}

// dryRunStatus is the exit status of strata call --dry-run for each
// outcome of a decision (see the README's Policy section).
var dryRunStatus = map[call.Verdict]int{
	call.VerdictRun: 0, call.VerdictAsk: 3, call.VerdictSkip: 4, call.VerdictRefused: 5, call.VerdictHeld: 6,
	call.VerdictLeftOut: 7, call.VerdictUnknown: 8, call.VerdictPinChanged: 9,
}

// dryRun prints the decision a call of name with args would meet, runs
// nothing, and ends with the outcome's exit status.
func dryRun(e *env, w *strataWorkspace, name string, args json.RawMessage) error {
	d, err := w.Decide(e.Ctx, name, args)
	if d == nil {
		return err
	}
	warn(e, diag.All(err))
	// What tools and the config wrote is data: escaped where a terminal
	// would act on it.
	if _, err := fmt.Fprintf(e.Stdout, "%s\n", termtext.JSON(d.JSON())); err != nil {
		return err
	}
	status, ok := dryRunStatus[d.Outcome]
	if !ok {
		status = 1
	}
	if status == 0 {
		return nil
	}
	return exitStatus(status)
}

// askedBy says what made a call ask first: its run mode and the rule that
// gave it.
func askedBy(d *call.Decision) string {
	if d == nil {
		return `its run mode is "ask"`
	}
	return decidedBy(d, "run")
}

// decidedBy names what decided a call's policy kind (run or result): the
// rule, where it was written and its reason, or the implicit rule.
func decidedBy(d *call.Decision, kind string) string {
	for _, r := range d.Reasons {
		switch r.Kind {
		case kind + "-rule":
			s := "the default rule " + r.Key
			if r.At != "" {
				s = "the rule " + r.Key + " (" + r.At + ")"
			}
			s += " says " + r.Mode
			if r.Reason != "" {
				s += ": " + r.Reason
			}
			return s
		case kind + "-implicit":
			if r.Key == "" {
				return "no " + kind + ` policy is set: the implicit { mode = "ask" } applies`
			}
			return "no rule of " + r.Key + ` holds: the implicit { mode = "ask" } applies`
		}
	}
	return d.Message
}

// maxShownArgs bounds the arguments a confirmation shows: past it, the
// rest is counted.
const maxShownArgs = 2000

// confirmRun asks on w whether to run tool with args, and reads the
// answer from in: y or yes runs it, anything else (Enter included) does
// not. With echo, it writes the answer it read after the question, as a
// terminal would.
func confirmRun(w io.Writer, in *bufio.Reader, echo bool, tool string, args json.RawMessage) (bool, error) {
	shown := string(args)
	if len(shown) > maxShownArgs {
		shown = strings.ToValidUTF8(shown[:maxShownArgs], "") + fmt.Sprintf("… (%d more bytes)", len(args)-maxShownArgs)
	}
	line, err := readLine(w, in, echo, fmt.Sprintf("Run %s %s? [y/N] ", tool, shown))
	if err != nil {
		return false, &diag.Error{Code: diag.CodeRefused, Msg: fmt.Sprintf("call %s: not run: stdin ended before an answer to whether to run it", tool)}
	}
	switch strings.ToLower(line) {
	case "y", "yes":
		return true, nil
	}
	return false, nil
}

// parseAnswers reads --answer ID=VALUE flags: VALUE is JSON, or else a
// string.
func parseAnswers(flags []string) (map[string]any, error) {
	answers := map[string]any{}
	for _, f := range flags {
		id, value, ok := strings.Cut(f, "=")
		if !ok || id == "" {
			return nil, usage(fmt.Errorf("--answer %s: expected ID=VALUE", f))
		}
		answers[id] = jsonOrString(value)
	}
	return answers, nil
}

// jsonOrString reads s as JSON, or else as a string.
func jsonOrString(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err == nil {
		return v
	}
	return s
}

// questionText is a question for a message: its text and the answers it
// takes.
func questionText(q protocol.Inquiry) string {
	// On one line: a line of its own could pass for strata's.
	text := strings.ReplaceAll(strings.TrimSpace(q.Text), "\n", " ")
	switch q.AnswerType {
	case "boolean":
		text += " (yes or no)"
	case "select":
		opts := make([]string, len(q.Options))
		for i, o := range q.Options {
			opts[i] = fmt.Sprint(o)
		}
		text += " (one of " + strings.Join(opts, ", ") + ")"
	}
	return text
}

// prompt asks a question on w and reads the answer from in, until it is
// one the question takes; with echo, it writes the answer it read after
// the question, as a terminal would.
func prompt(w io.Writer, in *bufio.Reader, echo bool, tool string, q protocol.Inquiry) (any, error) {
	for {
		line, err := readLine(w, in, echo, fmt.Sprintf("%s asks: %s ", tool, questionText(q)))
		if err != nil {
			return nil, &diag.Error{Code: diag.CodeUsage, Msg: fmt.Sprintf("%s asks %s, and stdin ended before an answer", tool, q.ID)}
		}
		v, ok, complaint := answerOf(q, line)
		if ok {
			return v, nil
		}
		fmt.Fprintln(w, complaint)
	}
}

// answerOf reads line as an answer to q: its default for an empty line
// when it has one, yes or no, one of its options (by its text or its
// number), or the text. ok is false, with what to tell the user, for an
// answer q does not take.
func answerOf(q protocol.Inquiry, line string) (v any, ok bool, complaint string) {
	if line == "" && q.Default != nil {
		return q.Default, true, ""
	}
	switch q.AnswerType {
	case "boolean":
		switch strings.ToLower(line) {
		case "y", "yes", "true":
			return true, true, ""
		case "n", "no", "false":
			return false, true, ""
		}
		return nil, false, "Please answer yes or no."
	case "select":
		for i, o := range q.Options {
			if line == fmt.Sprint(o) || line == strconv.Itoa(i+1) {
				return o, true, ""
			}
		}
		return nil, false, "Please answer with one of the options."
	}
	return line, true, ""
}
