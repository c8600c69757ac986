package codec

import (
	"reflect"

	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/shape"
)

// Text renders a plain value (a string, number, slice, map, or a type that
// writes itself) as TOML writes it inline: "ask", ["a", "b"],
// { state = "explicit" }. A secret.String is written as its reference.
func Text(v any) (string, error) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return "", nil
	}
	t, err := shape.Of(rv.Type())
	if err != nil {
		return "", err
	}
	var enc encoder
	n := enc.plain(rv, t, nil, true)
	if enc.err != nil {
		return "", enc.err
	}
	if n == nil {
		return "", nil
	}
	return doc.InlineTOML(n)
}
