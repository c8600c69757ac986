package strata_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
)

// TestPartialResult: a catalog returned with an error is a documented,
// typed outcome: the error is a *strata.PartialError that holds the
// catalog of what resolved and names each server that failed as a
// *resolve.ServerError, which errors.As finds too.
func TestPartialResult(t *testing.T) {
	dir := t.TempDir()
	w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(dir), strata.ConfigHome(t.TempDir()),
		strata.Environ([]string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}),
		strata.Cfg(`{"tools": {"hello": {"source": "builtin"}}, "mcp_servers": {"down": {"command": "`+filepath.Join(t.TempDir(), "no-such-server")+`"}}}`),
		strata.Builtins(map[string]resolve.Discovered{"hello": {Name: "hello", Description: "Say hello."}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cat, err := w.Resolve(context.Background())
	var pe *strata.PartialError
	if cat == nil || !errors.As(err, &pe) {
		t.Fatalf("Resolve = %v, %v; want a catalog and a *PartialError", cat, err)
	}
	if pe.Catalog != cat || len(cat.Tools) != 1 || cat.Tools[0].Name != "hello" {
		t.Errorf("the catalog of the rest: %+v (the error's: %p, Resolve's: %p)", cat.Tools, pe.Catalog, cat)
	}
	if len(pe.Servers) != 1 || pe.Servers[0].Server != "down" || pe.Servers[0].Msg == "" || pe.Servers[0].Fix == "" {
		t.Errorf("the servers that failed: %+v", pe.Servers)
	}
	var se *resolve.ServerError
	if !errors.As(err, &se) || se != pe.Servers[0] || !errors.Is(err, diag.CodeServer) {
		t.Errorf("errors.As(err, *resolve.ServerError) = %v, errors.Is(err, CodeServer) = %v", se, errors.Is(err, diag.CodeServer))
	}
	if diff := cmp.Diff(pe.Problems, diag.Errors(diag.All(err))); diff != "" {
		t.Errorf("diag.All lists the problems (-want +got):\n%s", diff)
	}
	if _, err := w.Runner(context.Background()); !errors.As(err, &pe) {
		t.Errorf("Runner's error is Resolve's: %v", err)
	}
}

// TestUnattended: what "ask" does in a host without a UI is one option:
// without it a call of a tool whose mode is ask is refused, naming it;
// with it the call runs, and skip still holds.
func TestUnattended(t *testing.T) {
	open := func(opts ...strata.Option) *strata.Workspace[config.Partial, config.Config] {
		w, err := strata.Open[config.Partial](context.Background(), config.Default(), append([]strata.Option{
			strata.Dir(t.TempDir()), strata.ConfigHome(t.TempDir()), strata.Environ([]string{"HOME=" + t.TempDir()}),
			strata.Cfg(`{"tools": {"hello": {"source": "builtin"}, "never": {"source": "builtin", "run": "skip"}}}`),
			strata.Builtins(map[string]resolve.Discovered{"hello": {Name: "hello"}, "never": {Name: "never"}},
				func(context.Context, protocol.Context) (protocol.Outcome, error) {
					return protocol.Outcome{Type: protocol.Success, Content: "hi"}, nil
				})}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		return w
	}
	var refusal *call.Refusal
	if _, err := open().Call(context.Background(), "hello", nil); !errors.As(err, &refusal) || !strings.Contains(refusal.Hint, "strata.Unattended") {
		t.Errorf("without a way to ask: %v; want a refusal that names strata.Unattended", err)
	}
	w := open(strata.Unattended())
	if res, err := w.Call(context.Background(), "hello", nil); err != nil || res.Type != protocol.Success || res.Content != "hi" {
		t.Errorf("unattended: %+v, %v", res, err)
	}
	if res, err := w.Call(context.Background(), "never", nil); err != nil || res.Type != protocol.Failure {
		t.Errorf("skip holds: %+v, %v", res, err)
	}
}
