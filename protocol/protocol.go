// Package protocol is the JP tool protocol: the context a tool runs with,
// the Outcome envelope it answers with, and the questions it may ask.
//
// A local tool's command template is rendered with a Context: {{tool}} and
// {{context}} become JSON, {{tool.name}}, {{context.root}} and other
// scalars their raw text. An MCP call carries the same Context in _meta,
// under MetaTool ("computer.jp/tool") and MetaContext
// ("computer.jp/context"). The protocol is transitional in JP (its RFD D31);
// strata keeps it as JP defines it.
package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Action is what a tool is asked to do.
type Action string

// Actions.
const (
	ActionRun             Action = "run"              // run the tool with its arguments
	ActionSchema          Action = "schema"           // describe the tools the binary serves
	ActionFormatArguments Action = "format_arguments" // render the arguments for people
)

// Context is what a tool receives: the call and its environment.
type Context struct {
	Tool    ToolCall `json:"tool"`
	Context Task     `json:"context"`
}

// ToolCall is the call: which tool, with what.
type ToolCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
	Answers   map[string]any `json:"answers"`
	Options   map[string]any `json:"options"`
}

// Task is what the tool is asked to do (its action) and where (the
// workspace root): the "context" object of the JP tool context.
type Task struct {
	Action Action `json:"action"`
	Root   string `json:"root"`
}

// NewContext builds the context of a call. Nil maps become empty objects,
// so that a tool always finds them.
func NewContext(action Action, root, name string, arguments, answers, options map[string]any) Context {
	orEmpty := func(m map[string]any) map[string]any {
		if m == nil {
			return map[string]any{}
		}
		return m
	}
	return Context{
		Tool:    ToolCall{Name: name, Arguments: orEmpty(arguments), Answers: orEmpty(answers), Options: orEmpty(options)},
		Context: Task{Action: action, Root: root},
	}
}

// Value returns the context as plain JSON values, for templates; numbers
// are json.Number, so that they keep their text.
func (c Context) Value() map[string]any {
	b, _ := json.Marshal(c)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	_ = dec.Decode(&m)
	return m
}

// The _meta keys of an MCP call that carry the context.
const (
	MetaTool    = "computer.jp/tool"
	MetaContext = "computer.jp/context"
)

// MetaDecision is the _meta key, in strata's namespace, of the result of
// every tool call strata serve answers: the call's decision (call.Decision
// as JSON: the tool, what decided, the tool set, the lock, the trust and
// pin), the same record strata call --dry-run prints.
const MetaDecision = "strata/decision"

// Meta returns the _meta payload of an MCP call: the tool and the context
// under their keys. It returns nil when the call has no answers and no
// options, so that a first call stays clean.
func (c Context) Meta() map[string]any {
	if len(c.Tool.Answers) == 0 && len(c.Tool.Options) == 0 {
		return nil
	}
	v := c.Value()
	return map[string]any{MetaTool: v["tool"], MetaContext: v["context"]}
}

// OutcomeType is the kind of an Outcome.
type OutcomeType string

// Outcome types.
const (
	Success    OutcomeType = "success"
	Failure    OutcomeType = "error"
	NeedsInput OutcomeType = "needs_input"
)

// Outcome is a tool's answer: success with content, an error (transient or
// not, with a trace), or a question that needs an answer before the tool
// can go on.
type Outcome struct {
	Type OutcomeType `json:"type"`
	// Content is the result of a success.
	Content string `json:"content,omitempty"`
	// Message, Trace and Transient describe an error; a transient error may
	// succeed if retried.
	Message   string   `json:"message,omitempty"`
	Trace     []string `json:"trace,omitempty"`
	Transient bool     `json:"transient,omitempty"`
	// Question is what a needs_input outcome asks.
	Question *Inquiry `json:"question,omitempty"`
	// Result, which a host's builtin tool may set, is its answer as a
	// whole MCP tool result (see [ReadMCPResult]): images, audio,
	// resources and structuredContent, which a call passes on as
	// call.Response.MCP and strata serve as written, while the other
	// fields are read from it as [FromMCP] reads a server's. It is never
	// written as JSON.
	Result *MCPResult `json:"-"`
}

// Inquiry is a question a tool asks before it can go on (JP's name for
// it). Its answer is passed back in Tool.Answers under its ID when the
// call is retried.
type Inquiry struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// AnswerType is "boolean", "select" (one of Options) or "text".
	AnswerType string `json:"answer_type,omitempty"`
	Options    []any  `json:"options,omitempty"`
	Default    any    `json:"default,omitempty"`
}

// ParseOutcome reads an Outcome and checks it is complete: a known type, a
// question with an id for needs_input, a message for an error.
func ParseOutcome(b []byte) (Outcome, error) {
	var o Outcome
	if err := json.Unmarshal(b, &o); err != nil {
		return Outcome{}, err
	}
	switch o.Type {
	case Success:
	case Failure:
		if o.Message == "" {
			return Outcome{}, fmt.Errorf("an error outcome needs a message")
		}
	case NeedsInput:
		if o.Question == nil || o.Question.ID == "" {
			return Outcome{}, fmt.Errorf("a needs_input outcome needs a question with an id")
		}
	default:
		return Outcome{}, fmt.Errorf("unknown outcome type %q; expected success, error or needs_input", o.Type)
	}
	return o, nil
}
