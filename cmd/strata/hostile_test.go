package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/hostile"
)

// checkHostileRun checks what the CLI did with a hostile input: exit 1,
// a first line "strata: " that names the place of the problem and says
// what it is, and a bounded list of short lines after it.
func checkHostileRun(t *testing.T, in hostile.Input, root string, r result) {
	t.Helper()
	if in.Where == hostile.Accepted {
		if r.code != 0 || !strings.Contains(r.stdout, `summary = "BOM"`) {
			t.Errorf("exit %d, stdout %.300q, stderr %.300q; want the layer read", r.code, r.stdout, r.stderr)
		}
		return
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if in.Where == hostile.AtEnv && r.code == 0 {
		// A variable whose name reaches no key is a warning of the CLI,
		// and ignored: the command goes on (issue 24).
		if !regexp.MustCompile(`^strata: warning: env STRATA_[^:]*: `).MatchString(lines[0]) || !strings.Contains(lines[0], in.Want) || len(lines) != 1 {
			t.Errorf("exit 0, stderr %.300q; want one warning that names the variable and says %q", r.stderr, in.Want)
		}
		return
	}
	if r.code != 1 || len(lines) == 0 {
		t.Fatalf("exit %d, stderr %.300q; want exit 1 and problems", r.code, r.stderr)
	}
	var place string
	switch in.Where {
	case hostile.AtLine:
		place = regexp.QuoteMeta(relative(in.Source(root))) + `[^:]*:\d+:\d+: `
	case hostile.AtFile:
		place = regexp.QuoteMeta(relative(in.Source(root))) + `: `
	case hostile.AtEnv:
		place = `env STRATA_[^:]*: `
	case hostile.AtCfg:
		place = `--cfg #1: `
	}
	if !regexp.MustCompile(`^strata: `+place).MatchString(lines[0]) || !strings.Contains(lines[0], in.Want) {
		t.Errorf("first line %.300q; want it to name %s and say %q", lines[0], place, in.Want)
	}
	if len(lines) > 101 {
		t.Errorf("%d lines, want at most 100 problems and a count of the others", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "strata: ") || len(l) > 2000 {
			t.Errorf("a line of %d bytes: %.300q", len(l), l)
		}
	}
	if r.stdout != "" {
		t.Errorf("stdout %.300q, want nothing", r.stdout)
	}
}

// relative is path as the CLI prints it: relative to the working
// directory when under it.
func relative(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	return strings.TrimPrefix(path, wd+string(filepath.Separator))
}

// TestHostileInputsCLI runs strata config, and strata merge on the files,
// on each hostile input: each ends with exit 1 and one positioned line.
func TestHostileInputsCLI(t *testing.T) {
	for _, in := range hostile.Inputs() {
		t.Run(in.Name, func(t *testing.T) {
			root, home := hostile.Workspace(t)
			in.Write(t, root)
			clearStrataEnv(t)
			t.Setenv("STRATA_CONFIG_HOME", home)
			for _, kv := range in.Env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			args := []string{"config", "--trust", "--root", root}
			for _, c := range in.Cfg {
				args = append(args, "--cfg", c)
			}
			checkHostileRun(t, in, root, runCLI(t, args...))
			if in.Layer != "" && in.Files == nil && !strings.HasPrefix(in.Name, "unset") {
				// merge reads the file alone (unset lists apply only over
				// a config, so merge is not asked about that one).
				t.Run("merge", func(t *testing.T) {
					checkHostileRun(t, in, root, runCLI(t, "merge", filepath.Join(root, ".strata", in.Layer)))
				})
			}
		})
	}
}

// TestSignalsEndStrata: SIGINT and SIGTERM end a strata that waits (here,
// strata serve waiting for its client), cleanly.
func TestSignalsEndStrata(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			root, environ := describeWorkspace(t, "config.toml", "[discover]\ndirs = [\"../tools\"]\n")
			cmd := exec.Command(strataBin, "serve", "--root", root, "--trust")
			cmd.Env = environ
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			// Once it answers, it is serving.
			fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
			if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("strata serve after %v: %v, want a clean end", sig, err)
			}
		})
	}
}

// describeWorkspace writes a workspace whose config (layer, under
// .strata/) discovers one --describe tool, weather, and returns its root
// and an environment to run strata in.
func describeWorkspace(t *testing.T, layer, config string) (root string, environ []string) {
	t.Helper()
	root, home := hostile.Workspace(t)
	tool := "#!/bin/sh\nif [ \"$1\" = --describe ]; then echo '{\"name\":\"weather\",\"description\":\"Get the weather.\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}'; exit 0; fi\nprintf '%s' \"$1\"\n"
	if err := os.MkdirAll(filepath.Join(root, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tools", "weather"), []byte(tool), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".strata", layer), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	return root, environ
}

// TestServeSurvivesHostileInputs writes each hostile input into the
// workspace a running strata serve watches: it reports the problem once,
// and goes on serving the catalog it had.
func TestServeSurvivesHostileInputs(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: a serve process per hostile file; -short has TestHostileInputsCLI")
	}
	good := map[string]string{
		"config.toml": "[discover]\ndirs = [\"../tools\"]\n",
		"config.json": `{"discover": {"dirs": ["../tools"]}}`,
		"config.yaml": "discover:\n  dirs: [../tools]\n",
	}
	// One server for each format, since a workspace has one config file.
	// The directory comes last: nothing can be renamed over it.
	groups := map[string][]hostile.Input{}
	var last []hostile.Input
	for _, in := range hostile.Inputs() {
		switch {
		case in.Layer == "" || in.Where == hostile.Accepted:
		case in.Special == "dir":
			last = append(last, in)
		default:
			groups[in.Layer] = append(groups[in.Layer], in)
		}
	}
	groups["config.toml"] = append(groups["config.toml"], last...)
	for layer, inputs := range groups {
		t.Run(layer, func(t *testing.T) {
			root, environ := describeWorkspace(t, layer, good[layer])
			serveHostile(t, root, environ, layer, inputs, good[layer])
		})
	}
}

func serveHostile(t *testing.T, root string, environ []string, layer string, inputs []hostile.Input, good string) {
	cmd := exec.Command(strataBin, "serve", "--root", root, "--trust")
	cmd.Env = environ
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1000)
	var all []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := bufio.NewScanner(stderr)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	changed := make(chan struct{}, 10)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx := context.Background()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	catalog := func() string {
		t.Helper()
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		return fmt.Sprint(names, " ", list.Meta["strata/fingerprint"])
	}
	before := catalog()
	if !strings.HasPrefix(before, "[weather] sha256:") {
		t.Fatalf("catalog %s, want the weather tool", before)
	}
	// wait reads stderr up to the first line that says want.
	wait := func(want string) string {
		t.Helper()
		for l := range lines {
			all = append(all, l)
			if strings.Contains(l, want) {
				return l
			}
		}
		t.Fatalf("strata serve ended without saying %q; stderr:\n%s", want, strings.Join(all, "\n"))
		return ""
	}
	reported := map[string]string{}
	for _, in := range inputs {
		in.Write(t, root)
		line := wait(in.Want)
		if !strings.HasPrefix(line, "strata: warning: ") {
			t.Errorf("%s: reported as %.300q", in.Name, line)
		}
		reported[in.Name] = line
		if got := catalog(); got != before {
			t.Errorf("%s: the catalog became %s, want %s", in.Name, got, before)
		}
	}
	// A good config again, with another tool: once the catalog changes,
	// every change before it has been seen to.
	restored := filepath.Join(root, ".strata", layer)
	write := filepath.Join(root, ".strata", "restore.tmp")
	second := strings.Replace(good, "tools", "more", 1)
	if err := os.MkdirAll(filepath.Join(root, "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	script, _ := os.ReadFile(filepath.Join(root, "tools", "weather"))
	if err := os.WriteFile(filepath.Join(root, "more", "wind"), []byte(strings.ReplaceAll(string(script), "weather", "wind")), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(write, []byte(second), 0o644); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(restored); err == nil && info.IsDir() {
		if err := os.Remove(restored); err != nil { // then the rename follows at once
			t.Fatal(err)
		}
	}
	if err := os.Rename(write, restored); err != nil {
		t.Fatal(err)
	}
	<-changed
	if got := catalog(); !strings.HasPrefix(got, "[wind] ") {
		t.Errorf("after the good config came back: %s, want the wind tool", got)
	}
	cs.Close()
	<-done
	for l := range lines {
		all = append(all, l)
	}
	for name, line := range reported {
		n := 0
		for _, l := range all {
			if l == line {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %.200q reported %d times, want once", name, line, n)
		}
	}
}
