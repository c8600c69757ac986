package load_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// streamLayer nests tables in every way a partial can, under one-letter
// keys, so that the fuzzer reaches TOML's rules about tables (defined
// twice, implicitly, by dotted keys, over values) in few bytes.
type streamLayer struct {
	A partial.Map[streamLayer]                 `toml:"a"`
	B partial.Nested[streamLayer]              `toml:"b"`
	C partial.Value[string]                    `toml:"c"`
	D partial.Map[partial.Any]                 `toml:"d"`
	E partial.List[int64]                      `toml:"e"`
	F partial.Map[partial.Map[streamLayer]]    `toml:"f"`
	G partial.Map[partial.Nested[streamLayer]] `toml:"g"`
	H partial.Map[partial.Value[int64]]        `toml:"h"`
	I config.EnablePartial                     `toml:"i"`
	S streamSub                                `toml:"s"`
}

type streamSub struct {
	A partial.Map[streamLayer]  `toml:"a"`
	C partial.Value[string]     `toml:"c"`
	S partial.Nested[streamSub] `toml:"s"`
}

// wideLayer has more fields than the decoder keeps track of in a
// struct's table: its map field m has a table of its own.
type wideLayer struct {
	P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15 partial.Value[int64]
	P16, P17, P18, P19, P20, P21, P22, P23, P24, P25, P26, P27, P28, P29 partial.Value[int64]
	P30, P31, P32                                                        partial.Value[int64]
	M                                                                    partial.Map[streamLayer]    `toml:"m"`
	N                                                                    partial.Nested[streamLayer] `toml:"n"`
	O                                                                    partial.Map[partial.Any]    `toml:"o"`
}

var streamSeeds = []string{
	"[a.x]\nc = \"1\"\n[a.x.a.y]\nc = \"2\"\n",
	"[a.x.a.y]\nc = \"2\"\n[a.x]\nc = \"1\"\n",
	"[a.x.a.y]\n[a.x]\n[a.x]\n",
	"a.x.c = \"1\"\n[a.x.b]\nc = \"2\"\n",
	"a.x.c = \"1\"\n[a.x]\n",
	"[a]\nx.c = \"1\"\nx.b.c = \"2\"\n[a.x.a.z]\n",
	"[a.x.b]\n[a]\nx.c = \"1\"\n",
	"[b]\nc = \"x\"\n[b.b.b]\n",
	"b = { c = \"x\" }\n[b.a.y]\n",
	"b.c = \"x\"\nb.c = \"y\"\n",
	"c = \"x\"\n[c]\n",
	"[d]\nk = 1\nl = { m = [1, 2] }\n[d.k]\n",
	"d.k = 1\nd.l.m = 2\n",
	"[d.k]\nm = 1\n",
	"e = [1, 2]\ne = { value = [3], strategy = \"append\" }\n",
	"e = { prepend = [1], append = [2], dedup = true }\n",
	"[f.x.y]\nc = \"1\"\n[f.x]\n[f.x.z.a.w]\n[f.x.y]\n",
	"f.x.y.c = \"1\"\nf.x.z = {}\n",
	"[g.x]\nc = \"1\"\n[g.x.b.a.y]\n[g.y]\n",
	"h.x = 1\nh.y = 2\n[h.z]\n",
	"[h]\nx = 1\nx = 2\n",
	"i = true\n[i]\n",
	"[i]\nstate = true\n",
	"i.state = true\n",
	"[s]\nc = \"1\"\n[s.a.x]\n[s.s.s.a.y.b]\n",
	"s.c = \"1\"\n[s]\n",
	"[[a]]\n",
	"[a.x]\n[[a.x.a]]\n",
	"unset = [\"a.x\"]\n",
	"extends = [\"x.toml\"]\n",
	"[m.x]\nc = \"1\"\n[m.x.a.y]\n[m.y]\n[n.a.x]\nc = \"1\"\np3 = 3\n",
	"p32 = 1\nm.x.c = \"1\"\n[m.x.b]\n[m]\n[m.y]\nn.c = \"2\"\n",
	"[m]\n[m]\n",
	"m.x.c = \"1\"\n[m.x]\n",
	"m.x.c = \"1\"\nm.x.c = \"2\"\n",
	"o.k = 1\n[o.l]\n",
	"a = 1\n",
	"[a.x]\nz = 1\n",
	"[a.'x.y'.a.\"\"]\nc = \"\"\n[a.\"x.y\"]\n",
	"\uFEFF[a.x]\nc = \"1\"\n",
	"[a.x]\nc = \"\u0000\"\n",
	"[a]\n" + strings.Repeat("[a.x.a.x]\n", 3),
	"[a.x0]\n[a.x1]\n[a.x2]\n[a.x3]\n[a.x4]\n[a.x5]\n[a.x6]\n[a.x7]\n[a.x8]\n[a.x9]\n[a.xa]\n[a.xb]\n[a.xc]\n[a.xd]\n[a.xe]\n[a.xf]\n[a.xg]\n[a.xh]\n[a.xi]\n[a.x0.a.y]\n[a.xi.a.y]\n[a.x5]\n",
}

func init() {
	// A table with more than indexAfter tables, found through the index.
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "[a.t%d]\nc = \"%d\"\n[f.m.t%d]\n", i, i, i)
	}
	for i := range 40 {
		fmt.Fprintf(&b, "[a.t%d.a.u]\n", 39-i)
	}
	streamSeeds = append(streamSeeds, b.String(), b.String()+"[a.t7]\n", b.String()+"[f.m.t21.b]\n[f.m]\n")
}

// FuzzDecodeAsRead holds the decoding of a TOML layer as it is read (the
// one file layers take) to the decoding of its tree: a document it
// decodes gives the same partial and the same count of values, the tree
// finds no problem in it, and a document it leaves to the tree is left
// with the zero partial.
func FuzzDecodeAsRead(f *testing.F) {
	for _, s := range tomlLayers {
		f.Add([]byte(s), uint8(0), uint16(0))
	}
	for i, s := range streamSeeds {
		f.Add([]byte(s), uint8(1+i%2), uint16(0))
		f.Add([]byte(s), uint8(1), uint16(3*i+1))
	}
	f.Fuzz(func(t *testing.T, data []byte, which uint8, limit uint16) {
		var lim load.Limits
		before := 0
		if limit != 0 {
			// Low limits, for the fuzzer to reach: depth, values, and
			// values of the documents before.
			lim.Depth = 2 + int(limit%16)
			lim.Values = 5 + int(limit>>4%256)
			before = int(limit >> 12)
		}
		var typ reflect.Type
		switch which % 3 {
		case 0:
			typ = reflect.TypeFor[config.Partial]()
		case 1:
			typ = reflect.TypeFor[streamLayer]()
		default:
			typ = reflect.TypeFor[wideLayer]()
		}
		fast, tree := reflect.New(typ), reflect.New(typ)
		values, ok, err := load.DecodeAsRead(data, lim, before, fast.Interface())
		if err != nil {
			t.Fatal(err)
		}
		treeValues, treeErr := load.DecodeTree(data, lim, before, tree.Interface())
		if !ok {
			if !fast.Elem().IsZero() {
				t.Fatalf("left to the tree, but the partial is not the zero value: %+v", fast.Elem())
			}
			return
		}
		if treeErr != nil {
			t.Fatalf("decoded as read, but the tree has problems: %v", treeErr)
		}
		if values != treeValues {
			t.Fatalf("decoded as read, %d values; the tree counts %d", values, treeValues)
		}
		st := shape.MustOf(typ)
		if !shape.Equal(fast.Elem(), tree.Elem(), st) {
			t.Fatalf("decoded as read differs from the tree's (-tree +as read):\n%s", layertest.Diff(tree.Interface(), fast.Interface()))
		}
	})
}
