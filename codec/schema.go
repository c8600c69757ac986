package codec

import (
	"reflect"
	"regexp"
	"sync"

	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/partial"
)

// Schemer is implemented by field types that describe their own JSON
// Schema, such as a type that accepts a string or a table.
type Schemer interface {
	JSONSchema() map[string]any
}

// ShorthandSchemer is implemented by the items of a list that a scalar
// stands for (see partial.Shorthander): the JSON Schema of that scalar.
type ShorthandSchemer interface {
	ShorthandSchema() map[string]any
}

// JSONSchema returns a JSON Schema (draft-07) of the layer files of
// partial type P, for editors: every key with its description (the `doc`
// struct tag), unknown keys refused, list strategies and the root unset
// list included.
func JSONSchema[P any](title string) ([]byte, error) {
	t, err := shape.OfPartial(reflect.TypeFor[P]())
	if err != nil {
		return nil, err
	}
	g := schemaGen{defs: map[string]any{}, names: map[*shape.Type]string{}, recursive: recursiveTypes(t)}
	root := g.structure(t)
	props := root["properties"].(map[string]any)
	if _, own := t.Field(partial.UnsetKey); !own {
		props[partial.UnsetKey] = map[string]any{
			"description": "Key paths this layer unsets: lower layers are ignored for them and the defaults apply (an entry of a table is removed).",
			"type":        "array",
			"items":       map[string]any{"type": "string"},
		}
	}
	if _, own := t.Field(extendsKey); !own {
		// The files a layer extends, as load reads them (codec.ExtendsKey).
		path := map[string]any{"type": "string", "minLength": 1}
		entry := map[string]any{"anyOf": []any{
			path,
			map[string]any{
				"type": "object",
				"properties": map[string]any{
					"path":     path,
					"strategy": map[string]any{"enum": []any{"before", "after"}, "description": "before (the default): the file merges below the declaring file; after: above it."},
					"format":   map[string]any{"enum": []any{"claude", "claude-code", "cursor", "vscode", "codex"}, "description": "Another client's MCP server file: whose it is."},
				},
				"required":             []any{"path"},
				"additionalProperties": false,
			},
		}}
		props[extendsKey] = map[string]any{
			"description": "Files this layer extends, relative to it (globs allowed): each merges below this file, or above it with strategy = \"after\".",
			"anyOf":       []any{path, map[string]any{"type": "array", "items": entry}},
		}
	}
	root["$schema"] = "http://json-schema.org/draft-07/schema#"
	root["title"] = title
	if len(g.defs) > 0 {
		root["definitions"] = g.defs
	}
	return indentJSON(root)
}

// extendsKey is the key of the files a layer extends, which the loader
// reads (codec.ExtendsKey).
const extendsKey = "extends"

type schemaGen struct {
	defs      map[string]any
	names     map[*shape.Type]string
	recursive map[*shape.Type]bool
}

// recursiveTypes finds the struct types that contain themselves; they are
// written once under definitions and referred to.
func recursiveTypes(root *shape.Type) map[*shape.Type]bool {
	out := map[*shape.Type]bool{}
	var walk func(t *shape.Type, stack []*shape.Type)
	walk = func(t *shape.Type, stack []*shape.Type) {
		if t == nil {
			return
		}
		for _, s := range stack {
			if s == t {
				out[t] = true
				return
			}
		}
		stack = append(stack, t)
		for _, f := range t.Fields {
			walk(f.Type, stack)
		}
		if t.Kind != shape.Any {
			walk(t.Elem, stack)
		}
	}
	walk(root, nil)
	return out
}

// nonIdent matches what a definition name cannot hold. It is compiled on
// first use, not at start-up.
var nonIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_]+`) })

func (g *schemaGen) partial(t *shape.Type, strategy shape.Strategy) map[string]any {
	switch t.Kind {
	case shape.Struct:
		if s, ok := reflect.Zero(t.Go).Interface().(Schemer); ok {
			return s.JSONSchema() // a struct that reads shorthands too
		}
		if !g.recursive[t] {
			return g.structure(t)
		}
		name, ok := g.names[t]
		if !ok {
			name = nonIdent().ReplaceAllString(t.Go.Name(), "_")
			g.names[t] = name
			g.defs[name] = map[string]any{} // placeholder against recursion
			g.defs[name] = g.structure(t)
		}
		return map[string]any{"$ref": "#/definitions/" + name}
	case shape.Value:
		return g.plain(t.Elem)
	case shape.List:
		items := map[string]any{"type": "array", "items": g.plain(t.Elem)}
		var short []any
		if s, ok := reflect.Zero(t.Elem.Go).Interface().(ShorthandSchemer); ok && t.Elem.Shorthand {
			short = append(short, s.ShorthandSchema()) // run = "ask"
		}
		return map[string]any{"anyOf": append(short, []any{
			items,
			map[string]any{
				"type":                 "object",
				"description":          "A list with an explicit strategy (a plain array uses " + strategy.String() + ").",
				"properties":           map[string]any{"value": items, "strategy": map[string]any{"enum": []any{"append", "prepend", "replace"}}, "dedup": map[string]any{"type": "boolean"}},
				"required":             []any{"value"},
				"additionalProperties": false,
			},
			map[string]any{
				"type":                 "object",
				"properties":           map[string]any{"prepend": items, "append": items, "dedup": map[string]any{"type": "boolean"}},
				"additionalProperties": false,
			},
		}...)}
	case shape.Map:
		return map[string]any{"type": "object", "additionalProperties": orNull(g.partial(t.Elem, shape.Replace))}
	case shape.Nested:
		return g.partial(t.Elem, shape.Replace)
	}
	return map[string]any{} // Any: free-form
}

func (g *schemaGen) structure(t *shape.Type) map[string]any {
	props := map[string]any{}
	for _, f := range t.Fields {
		s := orNull(g.partial(f.Type, f.Strategy))
		if f.Doc != "" {
			s["description"] = f.Doc
		}
		props[f.Key] = s
	}
	return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
}

// orNull allows null besides s: in JSON and YAML layers, null unsets.
func orNull(s map[string]any) map[string]any {
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

func (g *schemaGen) plain(t *shape.Type) map[string]any {
	if s, ok := reflect.Zero(t.Go).Interface().(Schemer); ok {
		return s.JSONSchema()
	}
	if t.Enum != nil {
		enum := make([]any, len(t.Enum))
		for i, e := range t.Enum {
			enum[i] = e
		}
		return map[string]any{"type": "string", "enum": enum}
	}
	switch t.Kind {
	case shape.String:
		return map[string]any{"type": "string"}
	case shape.Bool:
		return map[string]any{"type": "boolean"}
	case shape.Int, shape.Uint:
		return map[string]any{"type": "integer"}
	case shape.Float:
		return map[string]any{"type": "number"}
	case shape.Slice:
		return map[string]any{"type": "array", "items": g.plain(t.Elem)}
	case shape.GoMap:
		return map[string]any{"type": "object", "additionalProperties": g.plain(t.Elem)}
	case shape.Pointer:
		return g.plain(t.Elem)
	case shape.Struct:
		props := map[string]any{}
		for _, f := range t.Fields {
			props[f.Key] = g.plain(f.Type)
		}
		return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	case shape.Custom:
		return map[string]any{"type": "string"}
	}
	return map[string]any{}
}
