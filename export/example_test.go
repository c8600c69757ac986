package export_test

import (
	"fmt"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/resolve"
)

// Marshal writes the catalog as a vendor expects it: here as OpenAI's
// functions. A tool whose text the config does not change keeps its
// description as the tool wrote it.
func ExampleMarshal() {
	echo := resolve.Discovered{Name: "echo", Description: "Repeat a text. The text comes back as it was given.",
		InputSchema: resolve.MustSchema(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)}
	cfg := config.Default()
	cfg.Tools["echo"] = config.Tool{Source: config.Source{Kind: config.SourceBuiltin}}
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"echo": echo}})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _, err := export.Marshal(cat, export.OpenAI)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// [
	//   {
	//     "type": "function",
	//     "function": {
	//       "name": "echo",
	//       "description": "Repeat a text. The text comes back as it was given.",
	//       "parameters": {
	//         "type": "object",
	//         "properties": {
	//           "text": {
	//             "type": "string"
	//           }
	//         },
	//         "required": [
	//           "text"
	//         ]
	//       }
	//     }
	//   }
	// ]
}
