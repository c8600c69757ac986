package strata_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/trust"
)

type AgentPartial struct {
	config.Partial
	Model partial.Value[string] `toml:"model"`
}

type AgentSettings struct {
	config.Config
	Model string `toml:"model"`
}

func myagent(ctx context.Context, overrides, environ []string) error {
	ws, err := strata.Open[AgentPartial](ctx, AgentSettings{Config: config.Default(), Model: "claude-sonnet-4-5"},
		strata.Name("myagent"), strata.ConfigHome("~/.myagent"), strata.Overrides("-c", overrides...),
		strata.Environ(environ), strata.InheritEnv(), strata.ToolNames(config.ServerNames), strata.Unattended(),
		strata.CacheDir(strata.DefaultCacheDir("myagent", environ)), strata.TrustStore(&trust.Store{Path: trust.DefaultPath("myagent", environ)}))
	if err != nil {
		return err // every problem of files, variables and flags, positioned
	}
	defer ws.Close()
	for _, w := range ws.Warnings() {
		fmt.Fprintln(os.Stderr, w.Render()) // a project not trusted yet
	}
	cat, err := ws.Resolve(ctx)
	if cat == nil {
		return err
	} else if err != nil {
		fmt.Fprintln(os.Stderr, err) // a *strata.PartialError: a server failed, the model gets the rest
	}
	tools, _, err := export.Marshal(cat, export.Anthropic) // a Messages request's tools
	if err != nil {
		return err
	}
	fmt.Printf("%s with %d tools: %s\n", ws.Config().Model, len(cat.Tools), tools)
	res, err := ws.Call(ctx, "word_count", json.RawMessage(`{"text": "one two three"}`))
	if err == nil {
		fmt.Println(res.Type, res.Content)
	}
	return err
}

// A host's first day, its settings declared once (the project's file: README).
func Example_firstDay() {
	var overrides []string // -c model=claude-opus-4-1
	flag.Func("c", "KEY=VALUE", func(kv string) error { overrides = append(overrides, kv); return nil })
	flag.Parse()
	if err := myagent(context.Background(), overrides, os.Environ()); err != nil {
		fmt.Fprintln(os.Stderr, "myagent:", err)
	}
}
