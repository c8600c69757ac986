package lock

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strata-config/strata/resolve"
)

// ChangeKind is the kind of a [Change].
type ChangeKind string

// Kinds of change.
const (
	// Changed: the tool's definition, or its source, is not the one
	// locked. Held back.
	Changed ChangeKind = "changed"
	// Added: a tool the lock does not name, of a source it names (a new
	// tool of a locked MCP server or discovery directory). Held back.
	Added ChangeKind = "added"
	// Unlocked: a tool the lock does not name, of a source it does not
	// name either (a server configured since). Not held back.
	Unlocked ChangeKind = "unlocked"
	// Removed: a locked tool that is no longer in the catalog.
	Removed ChangeKind = "removed"
	// Unlisted: a locked tool that is not in the catalog because its
	// source gave no tools this run: it did not list them (a server that
	// did not start, a launch that no longer matches its pin), or it was
	// left out whole (a server a policy does not let start, or that the
	// config does not enable). It was not compared, and is not gone: the
	// change's Why says why. [Compare] gives Removed; a host that knows
	// which sources gave no tools makes it Unlisted (see [Unlist] and
	// [UnlistWhy]).
	Unlisted ChangeKind = "unlisted"
)

// Change is one difference between a lock and a catalog, as a UI shows
// it: the tool, the kind of change, the fields that changed, and the
// entries before (Locked) and now (Now).
type Change struct {
	Tool string
	Kind ChangeKind
	// Fields are what changed of a Changed tool: source, upstream, title,
	// description, inputSchema, outputSchema, annotations, then each other
	// key of the tool as served (_meta, icons, execution, ...), sorted.
	Fields []string
	// Locked is the entry of the lock (nil for Added and Unlocked); Now
	// that of the catalog (nil for Removed).
	Locked, Now *Entry
	// Why says, of an Unlisted change, why its source gave no tools, as
	// the words after the source's key: [NotListed] ("did not list its
	// tools"), "is not enabled (enabled = false)". "" is NotListed.
	Why string
}

// NotListed is the Why of an Unlisted change whose source did not list
// its tools: its own error says why.
const NotListed = "did not list its tools"

// why is the Why of an Unlisted change.
func (c Change) why() string {
	if c.Why == "" {
		return NotListed
	}
	return c.Why
}

// Held reports whether the change holds the tool back: it is changed, or
// new to a locked source.
func (c Change) Held() bool { return c.Kind == Changed || c.Kind == Added }

// String says what changed, in one line.
func (c Change) String() string {
	switch c.Kind {
	case Changed:
		return fmt.Sprintf("%s changed since it was locked: %s", c.Tool, strings.Join(c.Fields, ", "))
	case Added:
		return fmt.Sprintf("%s is new: the lock names its source (%s), not the tool", c.Tool, c.Now.Source)
	case Unlocked:
		return fmt.Sprintf("%s is not in the lock, nor is its source (%s)", c.Tool, c.Now.Source)
	case Unlisted:
		return fmt.Sprintf("%s is locked, and its source (%s) %s", c.Tool, c.Locked.Source, c.why())
	}
	return fmt.Sprintf("%s is locked but no longer in the catalog", c.Tool)
}

// Unlist makes Unlisted each Removed change whose locked entry failed
// reports as of a source that did not list its tools, and returns
// changes.
func Unlist(changes []Change, failed func(Entry) bool) []Change {
	return UnlistWhy(changes, func(e Entry) string {
		if failed(e) {
			return NotListed
		}
		return ""
	})
}

// UnlistWhy makes Unlisted each Removed change for whose locked entry
// why says why its source gave no tools ("" for a source that did: the
// tool is gone), with that Why, and returns changes.
func UnlistWhy(changes []Change, why func(Entry) string) []Change {
	for i, c := range changes {
		if c.Kind != Removed {
			continue
		}
		if w := why(*c.Locked); w != "" {
			changes[i].Kind, changes[i].Why = Unlisted, w
		}
	}
	return changes
}

// unlisted returns the sources of the Unlisted changes, sorted, each
// with the number of its tools and why it gave none.
func unlisted(changes []Change) (sources []string, n map[string]int, why map[string]string) {
	n, why = map[string]int{}, map[string]string{}
	for _, c := range changes {
		if c.Kind == Unlisted {
			n[c.Locked.Source]++
			why[c.Locked.Source] = c.why()
		}
	}
	return slices.Sorted(maps.Keys(n)), n, why
}

// UnlistedLines are the lines that say, one a source, why the sources
// of the Unlisted changes gave no tools and how many of their locked
// tools were not compared, sorted by source.
func UnlistedLines(changes []Change) []string { return sourceLines(changes, notCompared) }

// UnlistedLine says, in one line, that source did not list its tools
// and that its n locked tools were not compared.
func UnlistedLine(source string, n int) string {
	return source + " " + NotListed + ": " + notCompared(n)
}

// KeptLines are the lines that say, one a source, why the sources of
// the Unlisted changes gave no tools and that their locked tools are
// kept as they were locked (writing the lock keeps those of a server
// left out whole), sorted by source.
func KeptLines(changes []Change) []string { return sourceLines(changes, kept) }

// sourceLines says, one line a source of the Unlisted changes, why it
// gave no tools, then what follows for its n locked tools.
func sourceLines(changes []Change, follows func(n int) string) []string {
	sources, n, why := unlisted(changes)
	out := make([]string, len(sources))
	for i, src := range sources {
		out[i] = src + " " + why[src] + ": " + follows(n[src])
	}
	return out
}

func kept(n int) string {
	if n == 1 {
		return "its locked tool is kept as it was locked"
	}
	return fmt.Sprintf("its %d locked tools are kept as they were locked", n)
}

func notCompared(n int) string {
	if n == 1 {
		return "its locked tool was not compared"
	}
	return fmt.Sprintf("its %d locked tools were not compared", n)
}

// Compare returns the changes from the locked entries to the entries now,
// sorted by tool. Both lists are sorted by name, as [Entries] and [ReadBytes]
// give them.
func Compare(locked, now []Entry) []Change {
	sources := map[string]bool{}
	for _, e := range locked {
		sources[e.Source] = true
	}
	var out []Change
	i, j := 0, 0
	for i < len(locked) || j < len(now) {
		switch {
		case j == len(now) || i < len(locked) && locked[i].Name < now[j].Name:
			out = append(out, Change{Tool: locked[i].Name, Kind: Removed, Locked: &locked[i]})
			i++
		case i == len(locked) || now[j].Name < locked[i].Name:
			k := Unlocked
			if sources[now[j].Source] {
				k = Added
			}
			out = append(out, Change{Tool: now[j].Name, Kind: k, Now: &now[j]})
			j++
		default:
			if f := fields(locked[i], now[j]); len(f) > 0 {
				out = append(out, Change{Tool: now[j].Name, Kind: Changed, Fields: f, Locked: &locked[i], Now: &now[j]})
			}
			i++
			j++
		}
	}
	return out
}

// fields are the fields in which a and b differ.
func fields(a, b Entry) []string {
	if a.Hash == b.Hash && a.Source == b.Source && a.Upstream == b.Upstream {
		return nil
	}
	var out []string
	for _, f := range []struct {
		name string
		a, b string
	}{
		{"source", a.Source, b.Source}, {"upstream", a.Upstream, b.Upstream},
		{FieldTitle, a.Title, b.Title}, {FieldDescription, a.Description, b.Description},
		{FieldInputSchema, a.InputSchema, b.InputSchema}, {FieldOutputSchema, a.OutputSchema, b.OutputSchema},
		{FieldAnnotations, a.Annotations, b.Annotations},
	} {
		if f.a != f.b {
			out = append(out, f.name)
		}
	}
	return append(out, otherChanged(a.Other, b.Other)...)
}

// otherChanged are the keys, sorted, whose values differ between the
// Other of two entries (or that one of them has).
func otherChanged(a, b string) []string {
	if a == b {
		return nil
	}
	ka, kb := otherKeys(a), otherKeys(b)
	var out []string
	for k, v := range ka {
		if w, ok := kb[k]; !ok || string(v) != string(w) {
			out = append(out, k)
		}
	}
	for k := range kb {
		if _, ok := ka[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Verify returns the changes from the lock f to the catalog cat: nil when
// the catalog is what the lock approved. It is for a host's tests, so
// that a CI run fails when a server changes a definition:
//
//	f, err := lock.Read(ctx, ".strata/strata.lock", codec.Limits{})
//	...
//	if changes := lock.Verify(cat, f); len(changes) > 0 { t.Errorf(...) }
func Verify(cat *resolve.Catalog, f *Lockfile) []Change {
	var locked []Entry
	if f != nil {
		locked = f.Tools
	}
	return Compare(locked, Entries(cat))
}

// Hold returns cat without the tools that changes hold back (see
// [Change.Held]), and whether it left any out.
func Hold(cat *resolve.Catalog, changes []Change) (*resolve.Catalog, bool) {
	held := map[string]bool{}
	for _, c := range changes {
		if c.Held() {
			held[c.Tool] = true
		}
	}
	if len(held) == 0 {
		return cat, false
	}
	return cat.Filter(func(d resolve.Definition) bool { return !held[d.Name] }), true
}
