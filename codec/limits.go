package codec

import (
	"bytes"
	"context"

	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/readfile"
	"github.com/strata-config/strata/partial"
)

// Limits bound what strata reads, so that every layer file, variable and
// argument, however hostile, ends in time and memory bounded by them, with
// a clear error. A zero field takes its default; the defaults suit any
// config a person writes, and a host may raise them. CONTRIBUTING.md gives
// the reason for each value.
type Limits struct {
	// Depth is how deep tables and arrays may nest, in every format and
	// every form (TOML headers, dotted keys, inline tables), and in the key
	// paths of unset lists, overrides and variables: a value's key path,
	// array indexes included, has at most Depth parts. Default 1,000.
	Depth int
	// FileSize is the largest layer file, in bytes, enforced while
	// reading. Default 1 MiB.
	FileSize int64
	// Files is how many files the extends of one layer file may read,
	// counting a file once per extends that names it (each is read from
	// disk once). Default 64.
	Files int
	// Problems is how many problems one pass reports; the others are
	// counted in a last one ("… and 1,234 more problems"). Default 100.
	Problems int
	// Quote is how many characters of a key or value a message quotes
	// before "…". Default 100.
	Quote int
	// Total is how many bytes all the layer files of one load may hold
	// together (user, workspace, directory files, what they extend,
	// --cfg files). Default 8 MiB.
	Total int64
	// Values is how many values (tables, arrays and scalars) all the
	// layer files of one load may hold together. Memory follows values
	// more than bytes: 1 MiB holds half a million numbers. Default
	// 320,000: 10,000 described tools (the most one MCP server lists).
	Values int
	// ServerTools is how many tools of one MCP server are kept, all the
	// pages of its tools/list together; a list past it keeps its first
	// tools, with a warning. Default 10,000.
	ServerTools int
	// ServerListing is how many bytes of one MCP server's tools/list
	// results are read, all pages together (the tools kept, and what each
	// page holds besides); a list past it keeps its first tools within
	// it, with a warning. Default 4 MiB.
	ServerListing int64
}

// WithDefaults returns l with each zero field set to its default: the
// limits Load applies. A host passes its fields on to the readers it
// calls itself (the depth of discovered schemas and MCP answers, say).
func (l Limits) WithDefaults() Limits {
	l.Depth = limits.Or(l.Depth, limits.Depth)
	if l.FileSize <= 0 {
		l.FileSize = limits.FileSize
	}
	l.Files = limits.Or(l.Files, limits.Files)
	l.Problems = limits.Or(l.Problems, limits.Problems)
	l.Quote = limits.Or(l.Quote, limits.Quote)
	if l.Total <= 0 {
		l.Total = limits.Total
	}
	l.Values = limits.Or(l.Values, limits.Values)
	l.ServerTools = limits.Or(l.ServerTools, limits.ServerTools)
	if l.ServerListing <= 0 {
		l.ServerListing = limits.ServerListing
	}
	return l
}

// docOptions returns the options of the document readers, for a document
// read after documents that hold valuesBefore values.
func (l Limits) docOptions(valuesBefore int) doc.Options {
	return doc.Options{MaxDepth: l.Depth, MaxErrors: l.Problems, MaxQuote: l.Quote, MaxValues: l.Values, ValuesBefore: valuesBefore}
}

// Parse is [Parse] within limits l.
func (l Limits) Parse(name string, data []byte, format partial.Format) (*Document, error) {
	d, _, err := parse(name, bytes.Clone(data), format, l.WithDefaults(), false, 0)
	return d, err
}

// ParseAfter is [Parse] within l (with defaults for its zero fields) of
// data, which the document keeps and which must not change afterwards,
// reading JSON as JSONC (comments and trailing commas) when jsonc is set,
// after documents of the same load that hold valuesBefore values, which
// count towards l.Values. It returns how many values the document holds,
// also when it fails.
func (l Limits) ParseAfter(name string, data []byte, format partial.Format, jsonc bool, valuesBefore int) (*Document, int, error) {
	return parse(name, data, format, l.WithDefaults(), jsonc, valuesBefore)
}

// ReadFile reads the layer file at path within limits l: only a regular
// file (a symlink to one is followed), of at most FileSize bytes, and only
// while ctx lasts. A directory, a device (a symlink to /dev/zero), a named
// pipe or a socket is refused before a byte is read, without waiting for a
// writer. The problems are [*diag.Error] values naming path; a cancelled
// ctx gives its error as their cause.
func (l Limits) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return readfile.Regular(ctx, path, l.WithDefaults().FileSize, "a layer file")
}
