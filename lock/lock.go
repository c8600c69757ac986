// Package lock is strata.lock: what a model was approved to see of each
// tool, so that a tool whose definition changed since (a new description,
// a loosened schema, a new tool of a locked server) is held back until
// someone looks at the change and accepts it.
//
// A lock holds, for each tool of a resolved catalog, an [Entry]: its name,
// its source (the config key that launches it, as trust pins name it:
// mcp_servers.<server>, tools.<name>, discover.dirs or builtin), the tool
// as a client receives it (MCP's tools/list, as strata serve and --export
// mcp write it: title, description, input and output schemas, annotations,
// and every other key, _meta, icons and execution included) and a hash of
// that in a canonical form (keys sorted, compact JSON), so that the order
// in which a server writes its keys is not a change, and any key it
// changes is. [Entries] computes the entries of a catalog,
// [Compare] the changes between a lock and a catalog, [Verify] both, for a
// host's test; [ReadBytes] reads a lock with every problem positioned, and
// [Render] writes one, in TOML, sorted, the schemas as indented JSON, so
// that a change reads well in a pull request.
package lock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/resolve"
)

// FileName is the name of a lock file: <root>/.strata/strata.lock in a
// workspace, and beside the user's config file.
const FileName = "strata.lock"

// Sources of an [Entry] that no config key of its own names.
const (
	DiscoverDirs = "discover.dirs" // an executable of a discovery directory that answers --describe
	HostBuiltin  = "builtin"       // a tool the host implements
)

// Entry is one locked tool: what the model was approved to see.
type Entry struct {
	// Name is the tool's name in the catalog.
	Name string
	// Source is the config key of what launches the tool
	// (mcp_servers.<server>, tools.<name>), or SourceDiscover, or
	// SourceBuiltin. A new tool of a source that the lock names is held
	// back; one of a source it does not name is not.
	Source string
	// Upstream is the tool's name at its source, when it differs from Name
	// (a renamed MCP tool).
	Upstream string
	// Hash is the SHA-256 of the definition's canonical form
	// ("sha256:<hex>"): see [Hash].
	Hash string
	// What a client receives of the tool (and gives the model). The
	// schemas and annotations are canonical JSON: keys sorted, compact;
	// "" when the tool has none.
	Title        string
	Description  string
	InputSchema  string
	OutputSchema string
	Annotations  string
	// Other are the other keys of the tool as a client receives it
	// (_meta, icons, execution, a key of the server's own, a title or
	// description that is empty or not a string): a JSON object in
	// canonical form, "" when there are none. Only a tool whose config
	// changes nothing a model sees has any: it is served as its server
	// listed it.
	Other string
	// NeedsCapabilities is true for a tool of an MCP server that offers
	// it only to a client that declares sampling, elicitation or roots
	// (the lock lists as one, see [Version]): a client that declares
	// fewer is not offered it, and it is not missing there. It is not
	// part of what a client receives, nor of the hash.
	NeedsCapabilities bool
}

// Fields are the fields of what a model sees, as changes name them.
const (
	FieldTitle        = "title"
	FieldDescription  = "description"
	FieldInputSchema  = "inputSchema"
	FieldOutputSchema = "outputSchema"
	FieldAnnotations  = "annotations"
)

// EntryOf returns the entry of a resolved definition: the tool as a
// client receives it ([export.MCPToolJSON], what strata serve and
// --export mcp write), every key of it but its name. A schema that is not
// JSON is kept as it is (it does not resolve, so it never comes to this).
func EntryOf(d resolve.Definition) Entry {
	e := Entry{Name: d.Name, Source: SourceOf(d)}
	if d.Exec.Tool != "" && d.Exec.Tool != d.Name {
		e.Upstream = d.Exec.Tool
	}
	var wire map[string]json.RawMessage
	_ = json.Unmarshal(export.MCPToolJSON(d), &wire) // MCPToolJSON writes an object
	other := map[string]json.RawMessage{}
	for k, v := range wire {
		switch k {
		case "name":
		case FieldTitle, FieldDescription:
			var s string
			if json.Unmarshal(v, &s) != nil || s == "" {
				other[k] = v
			} else if k == FieldTitle {
				e.Title = s
			} else {
				e.Description = s
			}
		case FieldInputSchema:
			e.InputSchema = Canonical(v)
		case FieldOutputSchema:
			e.OutputSchema = Canonical(v)
		case FieldAnnotations:
			e.Annotations = Canonical(v)
		default:
			other[k] = v
		}
	}
	if len(other) > 0 {
		b, _ := json.Marshal(other) // values of a JSON object: always encodes
		e.Other = Canonical(b)
	}
	e.Hash = Hash(e)
	return e
}

// Entries returns the entries of every tool of cat, sorted by name.
func Entries(cat *resolve.Catalog) []Entry {
	out := make([]Entry, 0, len(cat.Tools))
	for _, d := range cat.Tools {
		out = append(out, EntryOf(d))
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// SourceOf returns the source of a definition as an [Entry] names it.
func SourceOf(d resolve.Definition) string {
	switch d.Exec.Kind {
	case resolve.ExecBuiltin:
		return HostBuiltin
	case resolve.ExecDescribe:
		if d.Exec.Key == "tools."+d.Name || d.Exec.Key == "" {
			return DiscoverDirs
		}
	}
	return d.Exec.Key
}

// ModelText is the description a model is told: the definition's
// description, whole (the summary is a short form, never added).
func ModelText(d resolve.Definition) string { return d.Description }

// Hash returns the hash of what e says a client receives of the tool:
// the SHA-256 of the canonical JSON object of its title, description,
// inputSchema, outputSchema and annotations (those that are not empty)
// and its other keys, as "sha256:<hex>": the tool as strata serves it,
// but its name. Name, Source and Upstream are not part of it. An entry
// without other keys hashes as one of version 1 of the lock did.
func Hash(e Entry) string {
	sum := sha256.Sum256(served(e))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// served is the canonical JSON of the tool e says a client receives,
// without its name. A key of Other that the entry writes on its own too
// (which ReadBytes refuses) gives way to Other's.
func served(e Entry) []byte {
	m := map[string]json.RawMessage{}
	for _, f := range []struct {
		key, raw string
	}{{FieldAnnotations, e.Annotations}, {FieldInputSchema, e.InputSchema}, {FieldOutputSchema, e.OutputSchema}} {
		if f.raw != "" {
			m[f.key] = json.RawMessage(f.raw)
		}
	}
	if e.Description != "" {
		m[FieldDescription] = jsonString(e.Description)
	}
	if e.Title != "" {
		m[FieldTitle] = jsonString(e.Title)
	}
	for k, v := range otherKeys(e.Other) {
		m[k] = v
	}
	// Sorted keys, no HTML escapes; the values are canonical already.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // raw values that were JSON: always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// otherKeys are the keys of an entry's Other, each with its value as
// canonical JSON; nil for "" (or what is not an object).
func otherKeys(other string) map[string]json.RawMessage {
	if other == "" {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(other), &m) != nil {
		return nil
	}
	for k, v := range m {
		m[k] = json.RawMessage(Canonical(v))
	}
	return m
}

// jsonString is s as a JSON string, without HTML escapes.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// Canonical returns JSON raw in its canonical form: object keys sorted,
// no space, numbers as written, no HTML escapes. Empty input gives "";
// input that is not JSON is returned as it is.
func Canonical(raw []byte) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	v, ok := decodeJSON(raw)
	if !ok {
		return string(raw)
	}
	return string(encodeJSON(v, ""))
}

// decodeJSON reads JSON with its numbers as written.
func decodeJSON(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	return v, true
}

// encodeJSON writes v (from decodeJSON) with its keys sorted, indented by
// indent ("" for compact).
func encodeJSON(v any, indent string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	_ = enc.Encode(v) // maps of strings, slices, json.Number, bool, nil: always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// pretty returns canonical JSON indented, for the file; "" stays "".
func pretty(canonical string) string {
	if canonical == "" {
		return ""
	}
	v, ok := decodeJSON([]byte(canonical))
	if !ok {
		return canonical
	}
	return string(encodeJSON(v, "  ")) + "\n"
}
