package resolve_test

import (
	"fmt"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// layerConfig decodes a TOML layer and finalizes it.
func layerConfig(text string) (config.Config, error) {
	var p config.Partial
	if err := codec.Decode("config.toml", []byte(text), partial.TOML, &p); err != nil {
		return config.Config{}, err
	}
	return config.Finalize(&p)
}

// Build applies the user's overrides to what tools said about themselves:
// here a --describe tool found in a discovery directory, whose unit the
// config narrows to two of its three values. The description is what a
// model is told, as the tool wrote it; the summary, a short form of it
// (its first sentence), is never added to it.
func ExampleBuild() {
	cfg, err := layerConfig(`
[tools.get_weather]
run = "unattended"
parameters.unit = { enum = ["celsius", "fahrenheit"] }
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	found := resolve.Found{Described: map[string]resolve.Described{
		"get_weather": {Path: "/opt/tools/weather", Discovered: resolve.Discovered{
			Name:        "get_weather",
			Description: "Get the weather of a city. Reports the temperature and the sky.",
			InputSchema: resolve.MustSchema(`{"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit", "kelvin"]}}, "required": ["city"]}`),
		}},
	}}
	cat, err := resolve.Build(cfg, found)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range cat.Tools {
		fmt.Println(d.Name, d.Source, d.Exec.Kind, d.Exec.Path, d.Run)
	}
	d, _ := cat.Tool("get_weather")
	fmt.Println(d.Summary)
	fmt.Println(d.Description)
	fmt.Println(d.InputSchema.String())
	// Output:
	// get_weather local describe /opt/tools/weather unattended
	// Get the weather of a city.
	// Get the weather of a city. Reports the temperature and the sky.
	// {"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city"]}
}

// A host's own tools enter the catalog when the config names them with
// source = "builtin"; the config overrides them like any other tool.
func ExampleBuild_builtins() {
	now := resolve.Discovered{Name: "now", Description: "The current time.",
		InputSchema: resolve.MustSchema(`{"type": "object", "properties": {"zone": {"type": "string"}}}`)}
	cfg, _ := layerConfig(`
[tools.now]
source = "builtin"
summary = "Tell the time."
parameters.zone = { default = "UTC" }
`)
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"now": now}})
	if err != nil {
		fmt.Println(err)
		return
	}
	d, _ := cat.Tool("now")
	fmt.Println(d.Name, d.Source, d.Exec.Kind, d.Exec.Tool)
	fmt.Println(d.Summary)
	fmt.Println(d.InputSchema.String())
	// Output:
	// now builtin builtin now
	// Tell the time.
	// {"type":"object","properties":{"zone":{"type":"string","default":"UTC"}}}
}

// A problem of one tool leaves it out, at its key path; the tools that
// resolved are still in the catalog. Settings for a tool that nothing
// defines are a warning: an override may be meant for tools that only some
// workspaces have.
func ExampleBuild_problems() {
	cfg, _ := layerConfig(`
[tools.now]
source = "builtin"

[tools.clock]
source = "builtin"

[tools.noww]
run = "unattended"
`)
	now := resolve.Discovered{Name: "now", InputSchema: resolve.MustSchema(`{"type": "object"}`)}
	cat, err := resolve.Build(cfg, resolve.Found{Builtins: map[string]resolve.Discovered{"now": now}})
	fmt.Println(len(cat.Tools), cat.Tools[0].Name)
	fmt.Println(err)
	fmt.Println(cat.Warnings)
	// Output:
	// 1 now
	// tools.clock.source: the host has no builtin tool named clock
	// skipped: tools.noww: no tool of this name is defined or discovered; its settings apply to nothing; did you mean now?
}
