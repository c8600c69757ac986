package resolve

import "encoding/json"

// Annotations are what an MCP server says of a tool's behaviour (MCP's
// ToolAnnotations), typed: hints for a host deciding how to present or
// confirm a call, never a guarantee (a server may say anything). A nil
// hint is one the server did not give; MCP's defaults for those are
// read-only false, destructive true, idempotent false, open-world true.
type Annotations struct {
	Title           string
	ReadOnlyHint    *bool
	DestructiveHint *bool
	IdempotentHint  *bool
	OpenWorldHint   *bool
}

// ReadOnly reports whether the tool says it changes nothing.
func (a Annotations) ReadOnly() bool { return a.ReadOnlyHint != nil && *a.ReadOnlyHint }

// Destructive reports whether the tool may destroy what it changes: MCP's
// default, true, unless it says otherwise or that it is read-only.
func (a Annotations) Destructive() bool {
	return !a.ReadOnly() && (a.DestructiveHint == nil || *a.DestructiveHint)
}

// Hints returns the tool's annotations ([Definition.Annotations]) typed;
// the zero Annotations when it has none. Keys MCP does not define stay in
// the raw Annotations.
func (d Definition) Hints() Annotations {
	var raw struct {
		Title           string `json:"title"`
		ReadOnlyHint    *bool  `json:"readOnlyHint"`
		DestructiveHint *bool  `json:"destructiveHint"`
		IdempotentHint  *bool  `json:"idempotentHint"`
		OpenWorldHint   *bool  `json:"openWorldHint"`
	}
	if len(d.Annotations) == 0 || json.Unmarshal(d.Annotations, &raw) != nil {
		return Annotations{}
	}
	return Annotations(raw)
}
