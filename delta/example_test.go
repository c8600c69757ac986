package delta_test

import (
	"fmt"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

func ExampleBetween() {
	before, after := new(config.Partial), new(config.Partial)
	_ = load.Decode("before.toml", []byte(`
[tools.grep]
source = "local"
command = "rg"
run = "ask"

[tools.old]
source = "builtin"
`), partial.TOML, before)
	_ = load.Decode("after.toml", []byte(`
[tools.grep]
source = "local"
command = "rg --json"
`), partial.TOML, after)

	d := delta.Between(before, after)
	text, _ := partial.Encode(d, partial.TOML)
	fmt.Print(string(text))
	// Output:
	// unset = ["tools.grep.run", "tools.old"]
	//
	// [tools.grep]
	// command = "rg --json"
}
