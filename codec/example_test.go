package codec_test

import (
	"fmt"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// A host raises or lowers the limits every source is read within; a zero
// field keeps its default.
func ExampleLimits() {
	fmt.Printf("%+v\n", codec.Limits{Depth: 5000}.WithDefaults())

	strict := codec.Limits{Depth: 3}
	_, err := strict.Parse("deep.toml", []byte("a.b.c.d = 1\n"), partial.TOML)
	fmt.Println(err)
	// Output:
	// {Depth:5000 FileSize:1048576 Files:64 Problems:100 Quote:100 Total:8388608 Values:320000 ServerTools:10000 ServerListing:4194304}
	// deep.toml:1:7: tables and arrays nest deeper than 3 levels, the limit
}

// Decode reads one layer into a partial; every problem of it comes back at
// once, positioned, with a did-you-mean.
func ExampleDecode() {
	var p config.Partial
	err := codec.Decode("tools.toml", []byte(`
[tools.grep]
source = "local"
rnu = "ask"
result = "sometimes"
`), partial.TOML, &p)
	for _, e := range diag.All(err) {
		fmt.Println(e.Code, e)
	}
	// Output:
	// unknown-key tools.toml:4:1: tools.grep.rnu: unknown key; did you mean run?
	// bad-value tools.toml:5:10: tools.grep.result: expected one of unattended, ask, edit, skip, found "sometimes"
}

// Encode writes a layer as the file it would be read from: an unset and
// a strategy included.
func ExampleEncode() {
	var p config.Partial
	p.Tools.Set("grep", config.ToolPartial{Run: partial.Replace(config.RunRule{Mode: config.RunAsk})})
	p.Tools.Remove("old")
	p.Discover.Dirs = partial.Prepend("tools")
	text, _ := codec.Encode(&p, partial.TOML)
	fmt.Print(string(text))
	// Output:
	// unset = ["tools.old"]
	//
	// [tools.grep]
	// run = "ask"
	//
	// [discover]
	// dirs = { value = ["tools"], strategy = "prepend" }
}
