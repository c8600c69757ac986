// Command koanfload is koanf's side of the whole-process load benchmark:
// it reads the layer files it is given and loads them into one koanf
// instance, in order, with koanf's TOML parser (as BenchmarkLoad/koanf
// does), and unmarshals the result into [bench.KoanfConfig].
package main

import (
	"fmt"
	"os"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	"github.com/strata-config/strata/internal/bench"
)

func main() {
	k := koanf.New(".")
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err == nil {
			err = k.Load(rawbytes.Provider(data), toml.Parser())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(1)
		}
	}
	var c bench.KoanfConfig
	if err := k.Unmarshal("", &c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(len(c.Tools), "tools")
}
