package resolve_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// weatherTool is a --describe tool: asked with --describe, it prints its
// name, description and JSON Schema; otherwise it runs with its arguments
// as one JSON argument.
const weatherTool = `#!/bin/sh
if [ "$1" = --describe ]; then
  echo '{"name": "get_weather", "description": "Get the weather of a city. Reports the temperature and the sky.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]}}, "required": ["city"]}}'
  exit 0
fi
printf '%s' "$1"
`

// layerConfig decodes a TOML layer and finalizes it.
func layerConfig(text string) (config.Config, error) {
	var p config.Partial
	if err := load.Decode("config.toml", []byte(text), partial.TOML, &p); err != nil {
		return config.Config{}, err
	}
	return config.Finalize(&p)
}

// Resolve discovers what a workspace's tools say about themselves and
// applies the user's overrides: here the unit a --describe tool accepts is
// narrowed to two of its three values.
func ExampleResolver_Resolve() {
	root, _ := os.MkdirTemp("", "workspace")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, "tools"), 0o755)
	_ = os.WriteFile(filepath.Join(root, "tools", "weather"), []byte(weatherTool), 0o755)

	cfg, err := layerConfig(`
[discover]
dirs = ["tools"]                     # relative to the workspace root

[tools.get_weather]
run = "unattended"
parameters.unit = { enum = ["celsius", "fahrenheit"] }
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	r := resolve.Resolver{Root: root, Environ: []string{"PATH=" + os.Getenv("PATH")}}
	cat, err := r.Resolve(context.Background(), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range cat.Tools {
		fmt.Println(d.Name, d.Source, d.Call.Protocol, d.Run)
	}
	d, _ := cat.Tool("get_weather")
	fmt.Println(d.Summary)
	fmt.Println(d.Description)
	fmt.Println(d.InputSchema.String())
	// Output:
	// get_weather local describe unattended
	// Get the weather of a city.
	// Reports the temperature and the sky.
	// {"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}
}

// A host's own tools are given to the resolver as Builtins, and enter the
// catalog when the config names them with source = "builtin"; the config
// overrides them like any other tool. Nothing runs to resolve them.
func ExampleResolver_Resolve_builtins() {
	now := resolve.Discovered{Name: "now", Description: "The current time."}
	now.InputSchema, _ = resolve.ParseJSON([]byte(`{"type": "object", "properties": {"zone": {"type": "string"}}}`))

	cfg, _ := layerConfig(`
[tools.now]
source = "builtin"
summary = "Tell the time."
parameters.zone = { default = "UTC" }
`)
	r := resolve.Resolver{Builtins: map[string]resolve.Discovered{"now": now}}
	cat, err := r.Resolve(context.Background(), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := cat.Tool("now")
	fmt.Println(d.Name, d.Source, d.Call.Protocol, d.Call.Tool, cat.Started)
	fmt.Println(d.Summary)
	fmt.Println(d.InputSchema.String())
	// Output:
	// now builtin builtin now 0
	// Tell the time.
	// {"type":"object","properties":{"zone":{"type":"string","default":"UTC"}}}
}

// Export writes the catalog as a vendor expects it.
func ExampleCatalog_Export() {
	echo := resolve.Discovered{Name: "echo", Description: "Repeat a text. The text comes back as it was given."}
	echo.InputSchema, _ = resolve.ParseJSON([]byte(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`))

	cfg, _ := layerConfig(`
[tools.echo]
source = "builtin"
`)
	r := resolve.Resolver{Builtins: map[string]resolve.Discovered{"echo": echo}}
	cat, err := r.Resolve(context.Background(), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := cat.Export(resolve.FormatOpenAI)
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
	//       "description": "Repeat a text.\n\nThe text comes back as it was given.",
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
