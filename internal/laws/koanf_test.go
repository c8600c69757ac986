package laws

import (
	"context"
	"reflect"
	"testing"

	"github.com/knadh/koanf/v2"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/decode"
	"github.com/strata-config/strata/koanflayer"
	"github.com/strata-config/strata/partial"
	"pgregory.net/rapid"
)

// TestLawKoanfRoundTrip: a layer put into a koanf tree (koanflayer.Of)
// and taken back out as a layer (koanflayer.FromKoanf) is the same layer,
// unsets and list strategies included. The tree uses koanf's usual "."
// delimiter, and keys that hold dots ("x.y") stay whole.
func TestLawKoanfRoundTrip(t *testing.T) {
	t.Parallel() // pure computation: the laws share the CPUs
	pt := partialShape
	rapid.Check(t, func(t *rapid.T) {
		p := layers.Draw(t, "p")
		k := koanf.New(".")
		if err := k.Load(koanflayer.Of(p), nil); err != nil {
			t.Fatalf("koanf Load: %v", err)
		}
		m, err := koanflayer.FromKoanf("tree", k).Read(context.Background())
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		root, _, errs := decode.Values("tree", m, false)
		if len(errs) > 0 {
			t.Fatalf("Values: %v", errs)
		}
		back := new(config.Partial)
		dec := decode.Decoder{Source: "tree"}
		dec.Root(root, reflect.ValueOf(back).Elem(), pt)
		if len(dec.Errs) > 0 {
			t.Fatalf("decode: %v\ntree: %v", dec.Errs, m)
		}
		if !equalLayers(p, back) {
			want, _ := codec.Encode(p, partial.TOML)
			got, _ := codec.Encode(back, partial.TOML)
			t.Fatalf("read back differs:\nwritten:\n%s\nread back:\n%s", want, got)
		}
	})
}
