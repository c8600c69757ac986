package call

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/internal/schemacheck"
	"github.com/strata-config/strata/resolve"
)

// prepare reads a call's arguments, fills in the defaults of the tool's
// schema and its forced values, and validates the result against the
// schema. Arguments keep their text: key order, numbers as written.
func (r *Runner) prepare(def resolve.Definition, args json.RawMessage) (json.RawMessage, error) {
	if trimmed := bytes.TrimSpace(args); len(trimmed) == 0 || string(trimmed) == "null" {
		args = json.RawMessage("{}") // no arguments; MCP clients may send null
	}
	v, err := jsonv.Parse(args)
	if err != nil {
		return nil, &Refusal{Tool: def.Name, Msg: "the arguments are not JSON: " + err.Error()}
	}
	if v.Kind() != jsonv.Object {
		return nil, &Refusal{Tool: def.Name, Msg: "the arguments must be a JSON object"}
	}
	// The schema's value and compiled form are made once for the
	// definition, by its first call, and shared by the calls after it.
	doc := schemacheck.DocOf(def.InputSchema)
	if doc == nil {
		return nil, &Refusal{Tool: def.Name, Msg: "it has no input schema"}
	}
	input, err := doc.Value()
	if err != nil {
		return nil, &Refusal{Tool: def.Name, Msg: "its input schema is not JSON: " + err.Error()}
	}
	fillDefaults(v, input)
	for _, k := range slices.Sorted(maps.Keys(def.Exec.Forced)) {
		if v.Get(k) == nil {
			v.Set(k, jsonv.MustOf(def.Exec.Forced[k]))
		}
	}
	out := v.JSON()
	schema, err := doc.Compiled()
	if err != nil {
		return nil, &Refusal{Tool: def.Name, Msg: err.Error()}
	}
	problems, err := schema.Validate(out)
	if err != nil {
		return nil, &Refusal{Tool: def.Name, Msg: err.Error()}
	}
	if len(problems) > 0 {
		e := &Refusal{Tool: def.Name, Msg: "invalid arguments"}
		for _, p := range problems {
			e.Problems = append(e.Problems, Problem{Path: p.Path, Msg: p.Msg})
		}
		return nil, e
	}
	return out, nil
}

// fillDefaults gives the properties of object v that schema describes
// with a default and v lacks their default, in the schema's order, and
// goes into the objects v has. It does not change schema.
func fillDefaults(v, schema *jsonv.Value) {
	props := schema.Get("properties")
	for _, k := range props.Keys() {
		p := props.Get(k)
		switch have := v.Get(k); {
		case have == nil:
			if d := p.Get("default"); d != nil {
				v.Set(k, d.Clone())
			}
		case have.Kind() == jsonv.Object:
			fillDefaults(have, p)
		}
	}
}

// decode decodes JSON with numbers as json.Number, so that they keep
// their text when written again.
func decode(b []byte, x any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(x)
}
