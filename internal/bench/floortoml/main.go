// Command floortoml is the floor of the whole-process load benchmark: it
// reads the layer files it is given and decodes each with go-toml/v2 into
// [bench.FloorLayer], keeping them all, as a load keeps its layers.
package main

import (
	"fmt"
	"os"

	gotoml "github.com/pelletier/go-toml/v2"
	"github.com/strata-config/strata/internal/bench"
)

func main() {
	layers := make([]*bench.FloorLayer, 0, len(os.Args)-1)
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			fail(err)
		}
		l := new(bench.FloorLayer)
		if err := gotoml.Unmarshal(data, l); err != nil {
			fail(fmt.Errorf("%s: %w", path, err))
		}
		layers = append(layers, l)
	}
	tools := 0
	for _, l := range layers {
		tools += len(l.Tools)
	}
	fmt.Println(len(layers), "layers,", tools, "tools")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
