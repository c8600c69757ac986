package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/internal/cli"
)

// TestStrataLinksNoMCPSDK: the strata command links none of the MCP SDK,
// nor what its initialisation costs (net/http, TLS, gob), nor strata's
// root package, which links the SDK: its commands that need it run in
// strata-mcp.
func TestStrataLinksNoMCPSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range []string{
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"github.com/strata-config/strata",
		"net/http",
		"crypto/tls",
		"encoding/gob",
	} {
		if slices.Contains(deps, pkg) {
			t.Errorf("strata links %s", pkg)
		}
	}
	if !slices.Contains(deps, "github.com/strata-config/strata/internal/cli") {
		t.Errorf("strata does not link internal/cli: the test looks at the wrong package")
	}
}

// delegationWorkspace writes a trusted workspace with one local tool, and
// an empty home, and returns the workspace's root.
func delegationWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	home, root := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for _, d := range []string{home, filepath.Join(root, ".strata")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const layer = `[tools.say]
source = "local"
command = "echo said {{tool}}"
summary = "Say a text."
run = "unattended"

[tools.say.parameters.text]
type = "string"
required = true
`
	if err := os.WriteFile(filepath.Join(root, ".strata", "config.toml"), []byte(layer), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "STRATA_CONFIG_HOME"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	return root
}

// TestStrataRunsStrataMCP: what strata hands to strata-mcp ends as the
// same command run in one process ends: output, messages and exit status,
// whether strata-mcp runs in strata's place (the strata program) or as its
// child (spawn, what strata does where a process cannot be replaced).
// Mistakes of the command line read the same too: strata-mcp parses it
// with strata's grammar.
func TestStrataRunsStrataMCP(t *testing.T) {
	root := delegationWorkspace(t)
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"resolve", []string{"resolve", "--root", root, "--trust"}, 0},
		{"resolve-openai", []string{"resolve", "--root", root, "--trust", "--export", "openai"}, 0},
		{"resolve-untrusted", []string{"resolve", "--root", root}, 0},
		{"call", []string{"call", "--root", root, "--trust", "say", `{"text":"hi"}`}, 0},
		{"call-unknown-tool", []string{"call", "--root", root, "--trust", "nope"}, 1},
		{"call-bad-arguments", []string{"call", "--root", root, "--trust", "say", `{"text":1}`}, 1},
		{"usage", []string{"resolve", "--export", "bogus"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), tt.args, strings.NewReader(""), &stdout, &stderr)
			want := result{code, stdout.String(), stderr.String()}
			if want.code != tt.code {
				t.Fatalf("in one process: %v", want)
			}

			stdout.Reset()
			stderr.Reset()
			cmd := exec.Command(strataBin, tt.args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			got := result{exitCode(t, err), stdout.String(), stderr.String()}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("strata (-one process +strata running strata-mcp):\n%s", diff)
			}

			stdout.Reset()
			stderr.Reset()
			e := &cli.Env{Ctx: context.Background(), Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Args: tt.args}
			code = 0
			if err := spawn(e, strataMCP); err != nil {
				code = cli.Report(&stderr, err)
			}
			got = result{code, stdout.String(), stderr.String()}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("spawn (-one process +strata-mcp spawned):\n%s", diff)
			}
		})
	}
}

// exitCode is the exit status of a finished process.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestStrataWithoutStrataMCP: a strata installed without strata-mcp beside
// it says so, and how to install both, for each command it would hand
// over; its own commands still run. It never looks in PATH: a strata-mcp
// there is not run.
func TestStrataWithoutStrataMCP(t *testing.T) {
	root := delegationWorkspace(t)
	dir := t.TempDir()
	alone := filepath.Join(dir, filepath.Base(strataBin))
	b, err := os.ReadFile(strataBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, b, 0o755); err != nil {
		t.Fatal(err)
	}
	// A strata-mcp in PATH that would say so if it ran.
	path := t.TempDir()
	impostor := filepath.Join(path, "strata-mcp")
	if runtime.GOOS != "windows" {
		if err := os.WriteFile(impostor, []byte("#!/bin/sh\necho impostor ran\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", path+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, command := range []string{"resolve", "call", "serve", "trust"} {
		t.Run(command, func(t *testing.T) {
			args := []string{command, "--root", root}
			if command == "call" {
				args = append(args, "say")
			}
			cmd := exec.Command(alone, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			got := result{exitCode(t, cmd.Run()), stdout.String(), stderr.String()}
			want := result{1, "", "strata: strata " + command + " needs strata-mcp, the strata command with the MCP SDK, and there is none beside strata in " + dir + "; install both: go install github.com/strata-config/strata/cmd/...@latest\n"}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	out, err := exec.Command(alone, "config", "--root", root, "--trust").Output()
	if err != nil || !strings.Contains(string(out), "[tools.say]") {
		t.Errorf("strata config without strata-mcp: %v\n%s", err, out)
	}
}

// TestStrataMCPIsStrata: a strata-mcp that is strata itself (a link to
// it) is refused, not run in strata's place again and again.
func TestStrataMCPIsStrata(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need privileges on Windows")
	}
	root := delegationWorkspace(t)
	dir := t.TempDir()
	self := filepath.Join(dir, "strata")
	b, err := os.ReadFile(strataBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(self, b, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, link := range []struct {
		name string
		make func(old, new string) error
	}{{"symlink", os.Symlink}, {"hard link", os.Link}} {
		t.Run(link.name, func(t *testing.T) {
			mcp := filepath.Join(dir, "strata-mcp")
			os.Remove(mcp)
			if err := link.make(self, mcp); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(self, "resolve", "--root", root)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			got := result{exitCode(t, cmd.Run()), stdout.String(), stderr.String()}
			want := result{1, "", "strata: strata resolve needs strata-mcp, and " + mcp + " is strata itself; install both: go install github.com/strata-config/strata/cmd/...@latest\n"}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
