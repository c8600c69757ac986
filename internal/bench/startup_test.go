package bench

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/testbin"
)

// BenchmarkStartup runs the commands of the CLI that start no program, as
// whole processes: strata --help (the command line alone), config on an
// empty setup, merge of one small file, diff of two, schema. The floor is hello, a Go hello world; linked
// is the same program linking every package the strata command links, so
// that its time over hello's is what their initialisation costs. Each
// iteration of a command also runs hello, untimed, and x-hello reports the
// command's time over hello's in the same iterations, so that load on the
// machine moves both alike. The -static cases are built with cgo off, as
// the README installs strata (hello links nothing of libc either way).
// x-linked is a command's time over its build's linked floor, in the same
// iterations: what strata's own work adds to what linking costs.
// mcpsdk-static, a hello world linking the MCP SDK alone, shows what the
// SDK's initialisation costs every command; resolve is strata resolve of
// the empty setup (no program to start), resolve-warm strata resolve of a
// workspace of three --describe tools whose answers are cached (nothing
// runs).
func BenchmarkStartup(b *testing.B) {
	const (
		self   = testbin.Strata
		hello  = "github.com/strata-config/strata/internal/bench/hello"
		linked = "github.com/strata-config/strata/internal/bench/linked"
		mcpsdk = "github.com/strata-config/strata/internal/bench/mcpsdk"
	)
	bins, err := testbin.Build(self, hello, linked)
	if err != nil {
		b.Fatal(err)
	}
	static, err := testbin.BuildStatic(self, linked, mcpsdk)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	if err := os.MkdirAll(home, 0o755); err != nil {
		b.Fatal(err)
	}
	write(b, filepath.Join(work, "low.toml"), "[tools.'*']\nrun = \"ask\"\n\n[tools.grep]\nsource = \"local\"\ncommand = \"grep -n {{pattern}}\"\nsummary = \"Search files.\"\n")
	write(b, filepath.Join(work, "high.toml"), "[tools.grep]\nrun = \"unattended\"\n\n[tools.grep.parameters.pattern]\ntype = \"string\"\nrequired = true\n")
	// A workspace of three --describe tools, for a warm strata resolve:
	// their answers cached, nothing runs.
	tools := describeTools(b, 3, "")
	// An empty setup: no user files, no workspace, no variables of strata's.
	environ := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home}
	run := func(b *testing.B, args []string, want int) time.Duration {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = work, environ
		start := time.Now()
		out, err := cmd.Output()
		d := time.Since(start)
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			b.Fatal(err)
		}
		if code != want || len(out) == 0 {
			b.Fatalf("%v: exit status %d, want %d, and %d bytes of output: %v", args, code, want, len(out), err)
		}
		return d
	}
	floor := []string{bins[hello]}
	b.Run("hello", func(b *testing.B) {
		for b.Loop() {
			run(b, floor, 0)
		}
	})
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		linked string // the linked floor of the same build; "" for the floors
	}{
		{"linked", []string{bins[linked]}, 0, ""},
		{"help", []string{bins[self], "--help"}, 0, bins[linked]},
		{"config", []string{bins[self], "config"}, 0, bins[linked]},
		{"merge", []string{bins[self], "merge", "low.toml"}, 0, bins[linked]},
		{"diff", []string{bins[self], "diff", "low.toml", "high.toml"}, 1, bins[linked]},
		{"schema", []string{bins[self], "schema"}, 0, bins[linked]},
		{"resolve", []string{bins[self], "resolve"}, 0, bins[linked]},
		{"resolve-warm", []string{bins[self], "resolve", "--root", tools, "--trust"}, 0, bins[linked]},
		{"mcpsdk-static", []string{static[mcpsdk]}, 0, ""},
		{"linked-static", []string{static[linked]}, 0, ""},
		{"help-static", []string{static[self], "--help"}, 0, static[linked]},
		{"config-static", []string{static[self], "config"}, 0, static[linked]},
		{"merge-static", []string{static[self], "merge", "low.toml"}, 0, static[linked]},
		{"diff-static", []string{static[self], "diff", "low.toml", "high.toml"}, 1, static[linked]},
		{"schema-static", []string{static[self], "schema"}, 0, static[linked]},
		{"resolve-static", []string{static[self], "resolve"}, 0, static[linked]},
		{"resolve-warm-static", []string{static[self], "resolve", "--root", tools, "--trust"}, 0, static[linked]},
	} {
		b.Run(c.name, func(b *testing.B) {
			if strings.HasPrefix(c.name, "resolve-warm") {
				// The first resolution fills the cache; the others run
				// nothing.
				cmd := exec.Command(c.args[0], c.args[1:]...)
				cmd.Dir, cmd.Env = work, environ
				out, err := cmd.Output()
				var cat struct{ Tools []json.RawMessage }
				if err != nil || json.Unmarshal(out, &cat) != nil || len(cat.Tools) != 3 {
					b.Fatalf("%v: %v: %d tools, want 3", c.args, err, len(cat.Tools))
				}
			}
			var cmd, base, link time.Duration
			for b.Loop() {
				b.StopTimer()
				base += run(b, floor, 0)
				if c.linked != "" {
					link += run(b, []string{c.linked}, 0)
				}
				b.StartTimer()
				cmd += run(b, c.args, c.code)
			}
			b.ReportMetric(float64(cmd)/float64(base), "x-hello")
			if c.linked != "" {
				b.ReportMetric(float64(cmd)/float64(link), "x-linked")
			}
		})
	}
}
