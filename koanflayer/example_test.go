package koanflayer_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/rawbytes"
	"github.com/knadh/koanf/v2"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/koanflayer"
)

// A host keeps its settings in one koanf tree: its own (port), the
// organisation's defaults for its assistant's tools from any koanf
// provider (etcd, Consul, Vault, S3, HTTP; bytes here), and, once strata
// has put the user's and the workspace's files over them, the tools model
// strata resolved.
func Example() {
	k := koanf.New(".")
	org := []byte(`
port = 8080

[assistant.tools.grep]
source = "local"
command = "rg --json"
run = "ask"
`)
	if err := k.Load(rawbytes.Provider(org), toml.Parser()); err != nil {
		fmt.Println(err)
		return
	}

	// The user's own file makes grep run unattended.
	home, _ := os.MkdirTemp("", "myapp")
	defer os.RemoveAll(home)
	_ = os.WriteFile(filepath.Join(home, "config.toml"), []byte("[tools.grep]\nrun = \"unattended\"\n"), 0o644)

	// The assistant table of the tree is a layer of strata's, where an
	// organisation's defaults belong: above the built-in defaults, below
	// the user's and the workspace's files.
	ws, err := strata.Open[config.Partial](context.Background(), config.Default(),
		strata.Name("myapp"), strata.Dir(home), strata.Environ([]string{"MYAPP_CONFIG_HOME=" + home}),
		strata.Sources(koanflayer.FromKoanf("myapp settings", k, koanflayer.Cut("assistant"))))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ws.Close()
	ex, _ := ws.Explain("tools.grep.run")
	fmt.Print(strings.ReplaceAll(ex.String(), home, "$HOME"))

	// The resolved tools model goes back into the tree, under assistant.
	model := koanf.New(".")
	if err := model.Load(koanflayer.Of(ws.Model()), nil); err != nil {
		fmt.Println(err)
		return
	}
	if err := k.MergeAt(model, "assistant"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(k.Int("port"), k.String("assistant.tools.grep.run"), k.String("assistant.tools.*.result"))
	// Output:
	// tools.grep.run = "unattended"
	//   koanf     myapp settings: set "ask"
	//   user      $HOME/config.toml:2:1: set "unattended"  <- wins
	// 8080 unattended unattended
}
