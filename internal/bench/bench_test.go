package bench

import (
	"os"
	"testing"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	gotoml "github.com/pelletier/go-toml/v2"
	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

const layerCount, toolCount = 5, 1000

func readLayers(b *testing.B) [][]byte {
	paths, err := Files("testdata", layerCount, toolCount)
	if err != nil {
		b.Fatal(err)
	}
	out := make([][]byte, len(paths))
	for i, p := range paths {
		if out[i], err = os.ReadFile(p); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

func totalBytes(files [][]byte) int64 {
	var n int64
	for _, f := range files {
		n += int64(len(f))
	}
	return n
}

func decodeAll(b *testing.B, files [][]byte) []*config.Partial {
	layers := make([]*config.Partial, len(files))
	for i, data := range files {
		p := new(config.Partial)
		if err := codec.Decode("layer", data, partial.TOML, p); err != nil {
			b.Fatal(err)
		}
		layers[i] = p
	}
	return layers
}

// BenchmarkLoad: decode + merge + finalize of five 1,000-tool layers, and
// its two baselines on the same bytes.
func BenchmarkLoad(b *testing.B) {
	files := readLayers(b)
	b.Run("strata", func(b *testing.B) {
		b.SetBytes(totalBytes(files))
		b.ReportAllocs()
		for b.Loop() {
			layers := decodeAll(b, files)
			if _, err := config.Finalize(merge.Layers(layers...)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor-gotoml", func(b *testing.B) {
		b.SetBytes(totalBytes(files))
		b.ReportAllocs()
		for b.Loop() {
			for _, data := range files {
				var l FloorLayer
				if err := gotoml.Unmarshal(data, &l); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("koanf", func(b *testing.B) {
		b.SetBytes(totalBytes(files))
		b.ReportAllocs()
		for b.Loop() {
			k := koanf.New(".")
			for _, data := range files {
				if err := k.Load(rawbytes.Provider(data), toml.Parser()); err != nil {
					b.Fatal(err)
				}
			}
			var c KoanfConfig
			if err := k.Unmarshal("", &c); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkSteps times each step of strata's load alone, the floor of one
// layer, the decoding of the first layer written as JSON, and delta and
// ToPartial of two 1,000-tool configs.
func BenchmarkSteps(b *testing.B) {
	files := readLayers(b)
	layers := decodeAll(b, files)
	merged := merge.Layers(layers...)
	cfg, err := config.Finalize(merged)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("floor-one-layer", func(b *testing.B) {
		b.SetBytes(int64(len(files[0])))
		b.ReportAllocs()
		for b.Loop() {
			var l FloorLayer
			if err := gotoml.Unmarshal(files[0], &l); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode-one-layer", func(b *testing.B) {
		b.SetBytes(int64(len(files[0])))
		b.ReportAllocs()
		for b.Loop() {
			p := new(config.Partial)
			if err := codec.Decode("layer", files[0], partial.TOML, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	asJSON, err := codec.Encode(layers[0], partial.JSON)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode-one-layer-json", func(b *testing.B) {
		b.SetBytes(int64(len(asJSON)))
		b.ReportAllocs()
		for b.Loop() {
			p := new(config.Partial)
			if err := codec.Decode("layer.json", asJSON, partial.JSON, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("merge-5-layers", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			merge.Layers(layers...)
		}
	})
	b.Run("finalize", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := config.Finalize(merged); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("delta-1000-tools", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			delta.Between(layers[0], layers[1])
		}
	})
	b.Run("topartial-1000-tools", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			config.ToPartial(cfg)
		}
	})
}

// BenchmarkAssign: one typical override, tools.<name>.<field>=value, into
// a 1,000-tool layer: parsing and applying, and applying a parsed one.
func BenchmarkAssign(b *testing.B) {
	files := readLayers(b)
	base := decodeAll(b, files[:1])[0]
	const text = "tools.tool_0500.run=unattended"
	b.Run("parse+apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			a, err := assign.Parse(text)
			if err != nil {
				b.Fatal(err)
			}
			if err := assign.Apply(base, a); err != nil {
				b.Fatal(err)
			}
		}
	})
	a, err := assign.Parse(text)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("apply", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := assign.Apply(base, a); err != nil {
				b.Fatal(err)
			}
		}
	})
}
