package discover

import (
	"fmt"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/jsonv"
)

// jpParamKeys are the keys of JP's parameter format (ToolParameterConfig).
var jpParamKeys = []string{"type", "summary", "description", "default", "enum", "examples", "items", "properties", "required"}

// fromJP converts the parameters of a JP schema answer, a map from name to
// JP's parameter format, into a JSON Schema object. A parameter without a
// default is required, unless it says otherwise. Keys JP does not define
// pass through as JSON Schema keywords.
func fromJP(params *jsonv.Value) (*jsonv.Value, error) {
	root := jsonv.MustParse(`{"type":"object","properties":{},"required":[]}`)
	if params == nil {
		return root, nil
	}
	if params.Kind() != jsonv.Object {
		return nil, fmt.Errorf("parameters must be an object of parameters by name")
	}
	props, required := root.Get("properties"), root.Get("required")
	for _, name := range params.Keys() {
		p := params.Get(name)
		s, err := jpParam(p)
		if err != nil {
			return nil, fmt.Errorf("parameter %s: %w", name, err)
		}
		props.Set(name, s)
		req := p.Get("default") == nil
		if r := p.Get("required"); r != nil {
			req = r.String() == "true"
		}
		if req {
			required.Append(jsonv.MustOf(name))
		}
	}
	return root, nil
}

func jpParam(p *jsonv.Value) (*jsonv.Value, error) {
	if p.Kind() != jsonv.Object {
		return nil, fmt.Errorf("expected an object, found %s", p)
	}
	s := jsonv.NewObject()
	summary, description := p.Get("summary"), p.Get("description")
	for _, k := range p.Keys() {
		v := p.Get(k)
		switch k {
		case "summary", "required":
		case "description":
			s.Set("description", joinText(summary, description))
		case "items":
			it, err := jpParam(v)
			if err != nil {
				return nil, fmt.Errorf("items: %w", err)
			}
			s.Set("items", it)
		case "properties":
			obj, err := fromJP(v)
			if err != nil {
				return nil, fmt.Errorf("properties: %w", err)
			}
			s.Set("properties", obj.Get("properties"))
			if len(obj.Get("required").Items()) > 0 {
				s.Set("required", obj.Get("required"))
			}
		default:
			s.Set(k, v.Clone())
		}
	}
	if description == nil && summary != nil {
		s.Set("description", summary.Clone())
	}
	return s, nil
}

// joinText joins a JP parameter's summary and description into the one
// JSON Schema description (see config.Join).
func joinText(summary, description *jsonv.Value) *jsonv.Value {
	d, _ := description.Str()
	sm, ok := summary.Str()
	if !ok {
		return description.Clone()
	}
	return jsonv.MustOf(config.Join(sm, d))
}
