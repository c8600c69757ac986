package diag_test

import (
	"errors"
	"fmt"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

// A problem points at the text of its document; the line is cut out of it
// only when the problem is shown.
func ExampleError_SetText() {
	text := []byte("[tools.grep]\nrnu = \"ask\"\n")
	e := &diag.Error{Source: "config.toml", Line: 2, Column: 1, Path: []string{"tools", "grep", "rnu"}, Msg: "unknown key", Hint: "did you mean run?"}
	e.SetText(text, 13)
	fmt.Println(e.Render())
	// Output:
	// error: config.toml:2:1: tools.grep.rnu: unknown key; did you mean run?
	//  2 | rnu = "ask"
	//    | ^
}

// A pass keeps the first problems it finds and counts the others.
func ExampleCollector() {
	c := diag.Collector{Max: 2}
	for i := range 1234 {
		c.AddError(&diag.Error{Source: "flood.json", Line: 1, Column: 8 + 6*i, Msg: "a is defined twice"})
	}
	err := c.Err()
	fmt.Println(err)
	for _, e := range diag.All(err) {
		fmt.Println(e)
	}
	// Output:
	// flood.json:1:8: a is defined twice (and 1,233 more problems)
	// flood.json:1:8: a is defined twice
	// flood.json:1:14: a is defined twice
	// flood.json: … and 1,232 more problems
}

// Render shows a problem for people, with the line it points at; a
// program tells problems apart by their Code.
func ExampleError_Render() {
	var p config.Partial
	err := codec.Decode("tools.toml", []byte("[tools.grep]\nsource = \"mcp\"\n"), partial.TOML, &p)
	e := diag.All(err)[0]
	fmt.Println(e.Render())
	fmt.Println(e.Code, errors.Is(err, diag.CodeBadValue))
	// Output:
	// error: tools.toml:2:10: tools.grep.source: invalid source "mcp": an mcp source needs a server; write mcp.<server> or mcp.<server>.<tool>
	//  2 | source = "mcp"
	//    |          ^
	// bad-value true
}
