package lock

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// SchemaOp is what a [SchemaChange] does at its pointer.
type SchemaOp string

// Schema change operations.
const (
	OpAdded   SchemaOp = "added"
	OpRemoved SchemaOp = "removed"
	OpChanged SchemaOp = "changed"
)

// SchemaChange is one difference of two JSON documents (schemas,
// annotations): at Pointer (RFC 6901), a value added, removed or changed.
// Old and New are compact JSON; "" where there is none.
type SchemaChange struct {
	Pointer string
	Op      SchemaOp
	Old     string
	New     string
}

// SchemaDiff returns the differences from JSON document a to b, in the
// order of their pointers: object keys are compared by name, array items
// by index; a value of another kind is changed whole. Either may be ""
// (no document).
func SchemaDiff(a, b string) []SchemaChange {
	var va, vb any
	var hasA, hasB bool
	if a != "" {
		va, hasA = decodeJSON([]byte(a))
	}
	if b != "" {
		vb, hasB = decodeJSON([]byte(b))
	}
	var out []SchemaChange
	switch {
	case !hasA && !hasB:
	case !hasA:
		out = append(out, SchemaChange{Pointer: "", Op: OpAdded, New: compact(vb)})
	case !hasB:
		out = append(out, SchemaChange{Pointer: "", Op: OpRemoved, Old: compact(va)})
	default:
		walk("", va, vb, &out)
	}
	return out
}

func walk(ptr string, a, b any, out *[]SchemaChange) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Sorted(maps.Keys(x))
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			p := ptr + "/" + escapePointer(k)
			xv, inA := x[k]
			yv, inB := y[k]
			switch {
			case !inA:
				*out = append(*out, SchemaChange{Pointer: p, Op: OpAdded, New: compact(yv)})
			case !inB:
				*out = append(*out, SchemaChange{Pointer: p, Op: OpRemoved, Old: compact(xv)})
			default:
				walk(p, xv, yv, out)
			}
		}
		return
	case []any:
		y, ok := b.([]any)
		if !ok {
			break
		}
		for i := 0; i < max(len(x), len(y)); i++ {
			p := ptr + "/" + strconv.Itoa(i)
			switch {
			case i >= len(x):
				*out = append(*out, SchemaChange{Pointer: p, Op: OpAdded, New: compact(y[i])})
			case i >= len(y):
				*out = append(*out, SchemaChange{Pointer: p, Op: OpRemoved, Old: compact(x[i])})
			default:
				walk(p, x[i], y[i], out)
			}
		}
		return
	}
	if ca, cb := compact(a), compact(b); ca != cb {
		*out = append(*out, SchemaChange{Pointer: ptr, Op: OpChanged, Old: ca, New: cb})
	}
}

func compact(v any) string { return string(encodeJSON(v, "")) }

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// TextDiff returns a unified diff (3 lines of context) from text a to b,
// labelled "locked" and "now"; "" when they are equal.
func TextDiff(a, b string) string {
	if a == b {
		return ""
	}
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a), B: difflib.SplitLines(b),
		FromFile: "locked", ToFile: "now", Context: 3,
	}) // writes to a strings.Builder: never fails
	return d
}

func withNewline(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// Diff writes the changes field by field, for a person to review: for a
// changed tool, a unified diff of its title and description and the
// differences of its schemas, annotations and other keys (_meta, icons,
// ...) at their JSON pointers; for a new tool, what a client would be
// given; for a removed one, its name.
func Diff(changes []Change) string {
	var b strings.Builder
	// What was not compared first, one line a source: the rest is
	// compared against a catalog without its tools.
	sources, n, why := unlisted(changes)
	for _, src := range sources {
		fmt.Fprintf(&b, "unlisted %s: %s: it %s\n", src, notCompared(n[src]), why[src])
	}
	for _, c := range changes {
		switch c.Kind {
		case Changed:
			fmt.Fprintf(&b, "changed %s (%s): %s\n", c.Tool, c.Now.Source, strings.Join(c.Fields, ", "))
			if c.Locked.Source != c.Now.Source {
				fmt.Fprintf(&b, "  source: %s -> %s\n", c.Locked.Source, c.Now.Source)
			}
			if c.Locked.Upstream != c.Now.Upstream {
				fmt.Fprintf(&b, "  upstream: %q -> %q\n", c.Locked.Upstream, c.Now.Upstream)
			}
			if c.Locked.Title != c.Now.Title {
				fmt.Fprintf(&b, "  title: %q -> %q\n", c.Locked.Title, c.Now.Title)
			}
			if d := TextDiff(c.Locked.Description, c.Now.Description); d != "" {
				b.WriteString("  description:\n")
				b.WriteString(indent(d, "    "))
			}
			schemas(&b, FieldInputSchema, c.Locked.InputSchema, c.Now.InputSchema)
			schemas(&b, FieldOutputSchema, c.Locked.OutputSchema, c.Now.OutputSchema)
			schemas(&b, FieldAnnotations, c.Locked.Annotations, c.Now.Annotations)
			locked, now := otherKeys(c.Locked.Other), otherKeys(c.Now.Other)
			for _, k := range otherChanged(c.Locked.Other, c.Now.Other) {
				schemas(&b, k, string(locked[k]), string(now[k]))
			}
		case Added, Unlocked:
			what := "new"
			if c.Kind == Unlocked {
				what = "new, of a source the lock does not name,"
			}
			fmt.Fprintf(&b, "added %s (%s): %s\n", c.Tool, c.Now.Source, what)
			if c.Now.Title != "" {
				fmt.Fprintf(&b, "  title: %q\n", c.Now.Title)
			}
			if c.Now.Description != "" {
				b.WriteString("  description:\n")
				b.WriteString(indent(withNewline(c.Now.Description), "    + "))
			}
			if names := parameterNames(c.Now.InputSchema); len(names) > 0 {
				fmt.Fprintf(&b, "  parameters: %s\n", strings.Join(names, ", "))
			}
			if other := otherKeys(c.Now.Other); len(other) > 0 {
				for _, k := range slices.Sorted(maps.Keys(other)) {
					fmt.Fprintf(&b, "  %s: %s\n", k, other[k])
				}
			}
		case Removed:
			fmt.Fprintf(&b, "removed %s (%s)\n", c.Tool, c.Locked.Source)
		}
	}
	return b.String()
}

func schemas(b *strings.Builder, field, a, c string) {
	changes := SchemaDiff(a, c)
	if len(changes) == 0 {
		return
	}
	fmt.Fprintf(b, "  %s:\n", field)
	for _, s := range changes {
		ptr := s.Pointer
		if ptr == "" {
			ptr = "(whole)"
		}
		switch s.Op {
		case OpAdded:
			fmt.Fprintf(b, "    added   %s: %s\n", ptr, s.New)
		case OpRemoved:
			fmt.Fprintf(b, "    removed %s: %s\n", ptr, s.Old)
		default:
			fmt.Fprintf(b, "    changed %s: %s -> %s\n", ptr, s.Old, s.New)
		}
	}
}

// indent puts prefix before each line of s.
func indent(s, prefix string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(strings.TrimRight(prefix+line, " ") + "\n")
	}
	return b.String()
}
