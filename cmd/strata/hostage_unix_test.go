//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hangs writes an executable at path that, whatever it is asked, notes
// that it started (a line in mark) and then never answers.
func hangs(t *testing.T, path, mark string) {
	t.Helper()
	script := "#!/bin/sh\necho started >> '" + mark + "'\nexec sleep 1000\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// starts returns how many times the program that notes its starts in
// mark started.
func starts(t *testing.T, mark string) int {
	t.Helper()
	b, err := os.ReadFile(mark)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "started\n")
}

// TestCallDoesNotWaitForOtherTools: a call discovers what its own tool
// needs, and nothing else: a program of another tool that never answers
// (an executable of the discovery directory, a command asked for its
// schema, an MCP server) is not started, so it does not hold the call up
// (issue 24: strata call slugify took 5.19 s beside a tool that hung).
// A tool whose executable has another name is found all the same: then
// everything is discovered, as for resolve.
func TestCallDoesNotWaitForOtherTools(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		config string // the workspace file; %HANG% is the hanging program
		file   string // where the hanging program is, under the root
		call   string // the tool called
		// started is how often the hanging program starts for the call.
		started int
	}{
		{
			name:   "an executable of the discovery directory",
			config: "[discover]\ndirs = [\"../tools\"]\n",
			file:   "tools/slow", call: "weather",
		},
		{
			name:   "a command asked for its schema",
			config: "[discover]\ndirs = [\"../tools\"]\n[tools.stuck]\ncommand = \"%HANG% {{tool}} {{context}}\"\n",
			file:   "stuck", call: "weather",
		},
		{
			name:   "an MCP server",
			config: "[discover]\ndirs = [\"../tools\"]\n[mcp_servers.stuck]\ncommand = \"%HANG%\"\nexpose = \"all\"\nstartup_timeout_sec = 1\n",
			file:   "stuck", call: "weather",
		},
		{
			// Its name is not the file's: the call asks every executable,
			// the hanging one for a second (its own timeout).
			name:   "a tool whose executable has another name",
			config: "[discover]\ndirs = [\"../tools\"]\n[tools.slow]\ndiscover_timeout_sec = 1\n",
			file:   "tools/slow", call: "get_weather", started: 1,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root, environ := describeWorkspace(t, "config.toml", "")
			hang := filepath.Join(root, tt.file)
			mark := filepath.Join(t.TempDir(), "started")
			hangs(t, hang, mark)
			if err := os.WriteFile(filepath.Join(root, ".strata", "config.toml"), []byte(strings.ReplaceAll(tt.config, "%HANG%", hang)), 0o644); err != nil {
				t.Fatal(err)
			}
			if tt.call == "get_weather" {
				if err := os.Rename(filepath.Join(root, "tools", "weather"), filepath.Join(root, "tools", "weather.sh")); err != nil {
					t.Fatal(err)
				}
				b, _ := os.ReadFile(filepath.Join(root, "tools", "weather.sh"))
				if err := os.WriteFile(filepath.Join(root, "tools", "weather.sh"), bytes.ReplaceAll(b, []byte(`"name":"weather"`), []byte(`"name":"get_weather"`)), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			stdout, stderr, code := strataIn(t, root, environ, "call", "--trust", "--yes", tt.call, `{"city":"Oslo"}`)
			if code != 0 || !strings.Contains(stdout, `"type": "success"`) {
				t.Fatalf("strata call %s: exit %d\n%s%s", tt.call, code, stdout, stderr)
			}
			if got := starts(t, mark); got != tt.started {
				t.Errorf("strata call %s started %s %d times, want %d\nstderr:\n%s", tt.call, tt.file, got, tt.started, stderr)
			}
		})
	}
}

// TestSlowToolRemembered: a tool that does not describe itself within its
// timeout is remembered (issue 24: it cost its 5 s on every resolve): the
// next resolve does not start it again and says so, with the setting that
// gives it longer; --refresh asks it again, and so does a longer timeout.
// The timeout is the tool's own discover_timeout_sec, else the
// directories' discover.timeout_sec.
func TestSlowToolRemembered(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, config, within string
	}{
		{"the tool's own timeout", "[discover]\ndirs = [\"../tools\"]\ntimeout_sec = 30\n[tools.slow]\ndiscover_timeout_sec = 1\n", "1s"},
		{"the directories' timeout", "[discover]\ndirs = [\"../tools\"]\ntimeout_sec = 1\n", "1s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each waits out its timeouts
			root, environ := describeWorkspace(t, "config.toml", tt.config)
			mark := filepath.Join(t.TempDir(), "started")
			hangs(t, filepath.Join(root, "tools", "slow"), mark)
			resolve := func(want int, wantWarning string, args ...string) {
				t.Helper()
				stdout, stderr, code := strataIn(t, root, environ, append([]string{"resolve", "--trust"}, args...)...)
				if code != 0 || !strings.Contains(stdout, `"name": "weather"`) {
					t.Fatalf("strata resolve %s: exit %d, want the catalog with weather\n%s%s", strings.Join(args, " "), code, stdout, stderr)
				}
				if got := starts(t, mark); got != want {
					t.Errorf("after strata resolve %s, tools/slow started %d times, want %d", strings.Join(args, " "), got, want)
				}
				if !strings.Contains(stderr, wantWarning) {
					t.Errorf("strata resolve %s: stderr\n%s\nwant a warning with %q", strings.Join(args, " "), stderr, wantWarning)
				}
			}
			hint := "; if it needs longer, set discover.timeout_sec, or tools.slow.discover_timeout_sec for this tool alone"
			resolve(1, "discover.dirs.0: tools/slow: did not describe itself within "+tt.within+" (remembered for 10 min; --refresh retries)"+hint)
			resolve(1, "tools/slow: did not describe itself within "+tt.within+" (")
			resolve(1, ", not asked again for ")
			resolve(2, "(remembered for 10 min; --refresh retries)", "--refresh")
			resolve(3, "within 2s (remembered for 10 min", "--cfg", "tools.slow.discover_timeout_sec=2")
			resolve(3, ", not asked again for ", "--cfg", "tools.slow.discover_timeout_sec=2")
		})
	}
}
