package koanflayer

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/knadh/koanf/v2"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// Provider is a koanf.Provider of a strata value: a resolved config (a
// Workspace's Config or Model) or a layer (a partial), as strata writes it
// in a file. Load it into a koanf tree beside the host's own settings:
//
//	k.Load(koanflayer.Of(ws.Config()), nil)
//
// Keys are the keys of strata's files (toml tags); values are strings,
// booleans, int64, float64, []any and map[string]any. A resolved config
// leaves out its zero fields; a layer lists what it unsets under the root
// "unset" key, so that [FromKoanf] reads it back as the same layer.
type Provider struct{ v any }

// Equal reports whether p and o provide the same value. It lets go-cmp
// compare providers.
func (p *Provider) Equal(o *Provider) bool {
	if p == nil || o == nil {
		return p == o
	}
	return reflect.DeepEqual(p.v, o.v)
}

// Of returns a koanf.Provider of v: see [Provider].
func Of(v any) *Provider { return &Provider{v: v} }

var _ koanf.Provider = (*Provider)(nil)

// ReadBytes returns the value as JSON, for koanf's JSON parser.
func (p *Provider) ReadBytes() ([]byte, error) {
	if p.v == nil {
		return []byte("{}"), nil
	}
	return codec.Encode(p.v, partial.JSON)
}

// Read returns the value as koanf's nested map: what [load.Typed] reads
// of it, numbers as int64 or float64.
func (p *Provider) Read() (map[string]any, error) {
	if p.v == nil {
		return map[string]any{}, nil
	}
	m, err := load.Typed("", p.v).Read(context.Background())
	if err != nil {
		return nil, fmt.Errorf("koanflayer: reading strata's JSON: %w", err)
	}
	return numbers(m).(map[string]any), nil
}

// numbers turns the json.Numbers of a decoded value into int64 (a number
// written without a fraction or exponent) or float64, as strata's own
// readers do.
func numbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	case json.Number:
		if !strings.ContainsAny(string(v), ".eE") {
			if i, err := v.Int64(); err == nil {
				return i
			}
		}
		f, _ := v.Float64()
		return f
	}
	return v
}
