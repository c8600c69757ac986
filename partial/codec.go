package partial

import "github.com/strata-config/strata/internal/doc"

// ValueUnmarshaler is implemented by field types that read themselves from
// a plain value: a string, int64, float64, bool, []any or map[string]any
// (what the document holds at the field, whatever its format). An error of
// type *[diag.Error] may give a Path relative to the field and a Hint.
type ValueUnmarshaler interface {
	UnmarshalValue(v any) error
}

// ValueMarshaler is implemented by field types that write themselves as a
// plain value.
type ValueMarshaler interface {
	MarshalValue() (any, error)
}

// Positioned is implemented (with a pointer receiver) by plain values
// that keep where they were read, such as a policy rule, which names its
// file and line when it decides a call: after reading one, the decoder
// calls SetPosition with the document's name and the 1-based line and
// column of the value. A position takes no part in what the value is: such
// a type also has an Equal method that leaves it out, which merging,
// deltas and go-cmp use.
type Positioned interface {
	SetPosition(source string, line, column int)
}

// Shorthander is implemented by the items of a list field that a scalar
// stands for (a policy rule: run = "ask" is run = [{ mode = "ask" }]). A
// string, number or boolean given where such a list goes is read, with
// the item type's UnmarshalValue, as the one item of a list that replaces
// what lower layers gave; and a list that replaces with one item whose
// Shorthand is ok is written as that scalar.
type Shorthander interface {
	Shorthand() (any, bool)
}

// Enum is implemented by types whose text form is one of a fixed set of
// values; decoding reports the set and a did-you-mean for other strings,
// and the JSON Schema lists them. For a type whose underlying kind is
// string, a listed value is stored as is, without calling UnmarshalText.
type Enum interface {
	EnumValues() []string
}

// Format is the format of a layer document.
type Format uint8

// Formats. TOML, JSON and YAML documents have the same shape.
const (
	TOML Format = Format(doc.TOML)
	JSON Format = Format(doc.JSON)
	YAML Format = Format(doc.YAML)
)

func (f Format) String() string { return doc.Format(f).String() }

// UnsetKey is the reserved root key that lists the paths a layer unsets:
//
//	unset = ["tools.grep.run", "tools.old_tool"]
//
// An unset brings back what the defaults give, dropping what lower layers
// said: an unset field takes its default; an unset table unsets all of its
// fields; an unset entry of a map (a tool, an option) is removed, or, when
// the defaults define it, goes back to the defaults' entry. When the same
// document also defines the entry, it starts again from its defaults. In
// JSON and YAML a null value unsets too.
const UnsetKey = "unset"
