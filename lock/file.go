package lock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// Version is the version of the lock format [Render] writes. [ReadBytes]
// reads it and version 1, whose entries lock what a model is told (title,
// description, schemas, annotations) but not the other keys a client
// receives (_meta, icons, execution, ...): see [Lockfile.Outdated].
// A lock of version 2 was written with every MCP server listed as a
// client that declares each capability strata serve relays (sampling,
// elicitation, roots), so that it has every tool a client may be
// offered; version 1 declared none. A change of what the lock declares
// is a new version.
const Version = 2

// Lockfile is a lock as read: its entries, and the document they were read
// from, to position problems.
type Lockfile struct {
	// Path is the file's name, as problems name it.
	Path string
	// Version is the version the file says it is: [Version], or 1.
	Version int
	// Tools are the entries, sorted by name.
	Tools []Entry
	doc   *codec.Document
}

// Outdated returns, for a lock of an older version than [Version], the
// warning that says what it does not lock and what to run, positioned at
// its version; nil for a lock of this version.
func (f *Lockfile) Outdated() *diag.Error {
	if f.Version == Version {
		return nil
	}
	msg := fmt.Sprintf("the lock is of version %d, written by an older strata: it locks what a model is told of each tool, not the other keys a client receives (_meta, icons, execution, ...), and its servers were listed as a client of no capabilities; a tool that has such keys is held back until they are locked", f.Version)
	hint := "see them with strata lock --diff; lock them with strata lock, which writes version " + strconv.Itoa(Version)
	var e *diag.Error
	if f.doc == nil {
		e = &diag.Error{Code: diag.CodeChanged, Source: f.Path, Path: partial.Path{"version"}, Msg: msg, Hint: hint}
	} else {
		e = f.doc.Problem(partial.Path{"version"}, msg, hint)
		e.Code = diag.CodeChanged
	}
	e.Severity = diag.SeverityWarning
	return e
}

// Equal reports whether f and o hold the same entries, read from the same
// path. It lets go-cmp compare values that hold lock files.
func (f *Lockfile) Equal(o *Lockfile) bool {
	if f == nil || o == nil {
		return f == o
	}
	return f.Path == o.Path && slices.Equal(f.Tools, o.Tools)
}

// Tool returns the entry of the tool named name.
func (f *Lockfile) Tool(name string) (Entry, bool) {
	i, ok := slices.BinarySearchFunc(f.Tools, name, func(e Entry, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return Entry{}, false
	}
	return f.Tools[i], true
}

// Problem returns an error about the key (source, hash, ...; "" for the
// entry itself) of the entry of tool, positioned where the file writes
// it.
func (f *Lockfile) Problem(tool, key, msg, hint string) *diag.Error {
	p := partial.Path{"tools", tool}
	if key != "" {
		p = p.Append(key)
	}
	if f.doc == nil {
		return &diag.Error{Code: diag.CodeInvalid, Source: f.Path, Path: p, Msg: msg, Hint: hint}
	}
	return f.doc.Problem(p, msg, hint)
}

// fileLayer is a lock file as a layer, read and written through the
// codec of every layer.
type fileLayer struct {
	Version partial.Value[int64]    `toml:"version"`
	Tools   partial.Map[entryLayer] `toml:"tools"`
}

// entryLayer is an [Entry] in the file. Summary and Parameters are there
// to be read (the first line of the description, the names of the
// parameters) and are checked against what they sum up.
type entryLayer struct {
	Source       partial.Value[string] `toml:"source"`
	Upstream     partial.Value[string] `toml:"upstream"`
	Hash         partial.Value[string] `toml:"hash"`
	Summary      partial.Value[string] `toml:"summary"`
	Parameters   partial.List[string]  `toml:"parameters"`
	Title        partial.Value[string] `toml:"title"`
	Description  partial.Value[string] `toml:"description"`
	InputSchema  partial.Value[string] `toml:"input_schema"`
	OutputSchema partial.Value[string] `toml:"output_schema"`
	Annotations  partial.Value[string] `toml:"annotations"`
	Other        partial.Value[string] `toml:"other"`
	// NeedsCapabilities is written only when true.
	NeedsCapabilities partial.Value[bool] `toml:"needs_capabilities"`
}

// fix is the hint of a lock that does not read.
const fix = "run strata lock to write it again from the tools as they are now (strata lock --diff shows what that accepts)"

// Read reads the lock file at path within lim; a file that does not exist
// gives nil and no error.
func Read(ctx context.Context, path string, lim codec.Limits) (*Lockfile, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	data, err := lim.ReadFile(ctx, path)
	if err != nil {
		return nil, err
	}
	return ReadBytes(path, data, lim)
}

// ReadBytes reads a lock file named name within lim. Every problem is
// positioned (file, line, column, key path) and says how to fix it: what
// is not TOML, unknown keys (with a did-you-mean), values of the wrong
// type, an entry without a source or a hash, a schema that is not JSON,
// and an entry edited by hand, whose hash, summary or parameters do not
// match its definition.
func ReadBytes(name string, data []byte, lim codec.Limits) (*Lockfile, error) {
	d, err := lim.Parse(name, data, partial.TOML)
	if err != nil {
		return nil, err
	}
	var p fileLayer
	if err := d.Decode(&p); err != nil {
		return nil, err
	}
	f := &Lockfile{Path: name, doc: d}
	var errs diag.Errors
	if v, ok := p.Version.Get(); !ok {
		errs = append(errs, &diag.Error{Code: diag.CodeInvalid, Source: name, Line: 1, Column: 1, Path: partial.Path{"version"}, Msg: "a lock file says its version", Hint: fmt.Sprintf("write version = %d at the top, or %s", Version, fix)})
	} else if v != Version && v != 1 {
		errs = append(errs, d.Problem(partial.Path{"version"}, fmt.Sprintf("version %d is not one this strata reads (it reads 1 and %d)", v, Version), fix))
	} else {
		f.Version = int(v)
	}
	for _, tool := range p.Tools.Keys() {
		el := *p.Tools.Get(tool)
		e, problems := entryOf(tool, el)
		for _, pr := range problems {
			errs = append(errs, f.Problem(tool, pr.key, pr.msg, pr.hint))
		}
		f.Tools = append(f.Tools, e)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}

type problem struct{ key, msg, hint string }

// otherProblem says what is wrong with the other keys of e: not an
// object, or a key the entry writes on its own (or the name, which is
// not locked).
func otherProblem(e Entry) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(e.Other), &m) != nil {
		return "not a JSON object: it holds the keys of the tool as served besides those written on their own", false
	}
	for _, k := range []struct {
		key, own string
		has      bool
	}{{"name", "the table's name", true}, {FieldTitle, "title", e.Title != ""}, {FieldDescription, "description", e.Description != ""},
		{FieldInputSchema, "input_schema", e.InputSchema != ""}, {FieldOutputSchema, "output_schema", e.OutputSchema != ""}, {FieldAnnotations, "annotations", e.Annotations != ""}} {
		if _, ok := m[k.key]; ok && k.has {
			return fmt.Sprintf("it holds %q, which the entry writes as %s", k.key, k.own), false
		}
	}
	return "", true
}

// entryOf reads the entry of tool, and says what is wrong with it.
func entryOf(tool string, el entryLayer) (Entry, []problem) {
	var out []problem
	e := Entry{Name: tool, Source: el.Source.V, Upstream: el.Upstream.V, Hash: el.Hash.V, Title: el.Title.V, Description: el.Description.V, NeedsCapabilities: el.NeedsCapabilities.V}
	if e.Source == "" {
		out = append(out, problem{"", "the entry has no source", "write source = \"mcp_servers.<server>\", \"tools.<name>\", \"" + DiscoverDirs + "\" or \"" + HostBuiltin + "\", or " + fix})
	}
	schemas := true
	for _, s := range []struct {
		key string
		in  string
		out *string
	}{{"input_schema", el.InputSchema.V, &e.InputSchema}, {"output_schema", el.OutputSchema.V, &e.OutputSchema}, {"annotations", el.Annotations.V, &e.Annotations}, {"other", el.Other.V, &e.Other}} {
		if strings.TrimSpace(s.in) == "" {
			continue
		}
		// What Render wrote is canonical JSON indented: compacted, it is
		// canonical again. Keys put out of order by hand are not, and
		// their hash says so.
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(s.in)); err != nil {
			out = append(out, problem{s.key, "not JSON: " + err.Error(), fix})
			schemas = false
			continue
		}
		*s.out = b.String()
	}
	if schemas && e.Other != "" {
		if p, ok := otherProblem(e); !ok {
			out = append(out, problem{"other", p, fix})
			schemas = false
		}
	}
	switch {
	case e.Hash == "":
		out = append(out, problem{"", "the entry has no hash", fix})
	case !schemas:
	case Hash(e) != e.Hash:
		out = append(out, problem{"hash", "the hash is not that of the definition written here: the entry was edited by hand", fix})
	}
	if schemas && el.Summary.V != firstLine(e.Description) {
		out = append(out, problem{"summary", fmt.Sprintf("the summary is not the first line of the description (%q)", firstLine(e.Description)), fix})
	}
	if names := parameterNames(e.InputSchema); schemas && !slices.Equal(listOf(el.Parameters), names) {
		out = append(out, problem{"parameters", fmt.Sprintf("the parameters are not those of the input schema (%s)", strings.Join(names, ", ")), fix})
	}
	return e, out
}

// listOf returns the items of a list as written in one layer.
func listOf(l partial.List[string]) []string {
	out := slices.Clone(l.Items) // the head, then the tail
	if len(out) == 0 {
		return nil
	}
	return out
}

// firstLine is the first line of s that is not blank, trimmed.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if t := strings.TrimSpace(line); t != "" {
			return t
		}
	}
	return ""
}

// parameterNames are the names of the top-level properties of an input
// schema, sorted.
func parameterNames(schema string) []string {
	if schema == "" {
		return nil
	}
	var v struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal([]byte(schema), &v) != nil || len(v.Properties) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(v.Properties))
}

// header opens a lock file: what it is and how to change it.
const header = `# strata.lock: what a client was approved to receive of each tool, and so
# the model to see. Written by strata lock; review a change to it as you
# would a change of code. A tool whose definition (any key of it, "other"
# holding those beside the title, description, schemas and annotations)
# differs from its entry here, or a new tool of a source named here, is
# held back (lock.policy = "hold", the default) until strata lock accepts
# it; strata lock --diff shows the changes. The servers were listed as a
# client that declares sampling, elicitation and roots, so that every tool
# a client of strata serve may be offered is here; needs_capabilities marks
# a tool a server offers only to such a client.
`

// Render writes entries as a lock file: sorted by name, the schemas as
// indented JSON.
func Render(entries []Entry) ([]byte, error) {
	p := fileLayer{Version: partial.Of(int64(Version))}
	for _, e := range entries {
		el := entryLayer{
			Source:   partial.Of(e.Source),
			Hash:     partial.Of(e.Hash),
			Summary:  partial.Of(firstLine(e.Description)),
			Upstream: opt(e.Upstream), Title: opt(e.Title), Description: opt(e.Description),
			InputSchema: opt(pretty(e.InputSchema)), OutputSchema: opt(pretty(e.OutputSchema)), Annotations: opt(pretty(e.Annotations)),
			Other: opt(pretty(e.Other)),
		}
		if e.NeedsCapabilities {
			el.NeedsCapabilities = partial.Of(true)
		}
		if names := parameterNames(e.InputSchema); len(names) > 0 {
			el.Parameters = partial.Replace(names...)
		}
		p.Tools.Set(e.Name, el)
	}
	b, err := codec.Encode(&p, partial.TOML)
	if err != nil {
		return nil, err
	}
	return append([]byte(header), b...), nil
}

func opt(s string) partial.Value[string] {
	if s == "" {
		return partial.Value[string]{}
	}
	return partial.Of(s)
}

// WriteFile writes entries to the lock file at path, replacing it at once:
// a reader sees the lock before or the lock after, never a part.
func WriteFile(path string, entries []Entry) error {
	b, err := Render(entries)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return &diag.Error{Code: diag.CodeWrite, Source: path, Msg: "cannot create the directory of the lock", Err: err}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return &diag.Error{Code: diag.CodeWrite, Source: path, Msg: "cannot write the lock", Err: err}
	}
	_, werr := tmp.Write(b)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return &diag.Error{Code: diag.CodeWrite, Source: path, Msg: "cannot write the lock", Err: err}
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return &diag.Error{Code: diag.CodeWrite, Source: path, Msg: "cannot write the lock", Err: err}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return &diag.Error{Code: diag.CodeWrite, Source: path, Msg: "cannot write the lock", Err: err}
	}
	return nil
}
