package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/hostile"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/testbin"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/trust"
)

// hostileApp is the load of a workspace holding a hostile input.
func hostileApp(b *testing.B, in hostile.Input) *load.App[config.Partial, config.Config] {
	root, home := hostile.Workspace(b)
	in.Write(b, root)
	return &load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Dir: root, Cfg: in.Cfg,
		Environ: append([]string{"STRATA_CONFIG_HOME=" + home}, in.Env...),
		Trust:   trust.List{Workspaces: []string{root}}}
}

// BenchmarkHostile loads a workspace holding each hostile input, as
// strata config does, in this process: the time and memory it takes to
// end with its problem.
func BenchmarkHostile(b *testing.B) {
	for _, in := range hostile.Inputs() {
		b.Run(in.Name, func(b *testing.B) {
			app := hostileApp(b, in)
			b.ReportAllocs()
			for b.Loop() {
				_, err := app.Load(context.Background())
				if (err == nil) != (in.Where == hostile.Accepted) {
					b.Fatalf("error %v", err)
				}
			}
		})
	}
}

// BenchmarkHostileProcess runs strata config, the built binary, on each
// hostile input, and reports the largest resident set of its runs
// (maxRSS-MB) along with the time of a run: what a user sees.
func BenchmarkHostileProcess(b *testing.B) {
	const self = testbin.Strata
	bins, err := testbin.Build(self)
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range hostile.Inputs() {
		b.Run(in.Name, func(b *testing.B) {
			root, home := hostile.Workspace(b)
			in.Write(b, root)
			// --trust: the workspace's layers are read only when trusted, and
			// the hostile input is one of them.
			args := []string{"config", "--trust", "--root", root}
			for _, c := range in.Cfg {
				args = append(args, "--cfg", c)
			}
			environ := append([]string{"PATH=/usr/bin:/bin", "HOME=" + home, "STRATA_CONFIG_HOME=" + home}, in.Env...)
			want := fails
			switch in.Where {
			case hostile.Accepted:
				want = succeeds
			case hostile.AtEnv:
				// A variable whose name reaches no key is a warning, and
				// the command goes on (issue 24); a bad value fails.
				want = eitherWay
			}
			b.ReportMetric(maxRSS(b, bins[self], args, environ, want, 0), "maxRSS-MB")
		})
	}
}

// outcome is how a run of strata is to end.
type outcome int

const (
	succeeds  outcome = iota // exit 0, with output
	fails                    // exit 1
	eitherWay                // exit 0 or 1
)

// maxRSS runs strata with args b.N times under GNU time and returns the
// largest resident set of the runs, in MB; want says how strata is to
// end, and a run that succeeds prints at least minOut bytes. (The rusage
// of a child started by os/exec would not do: it is started with vfork,
// so its maximum counts the benchmark's own memory.)
func maxRSS(b *testing.B, strata string, args, environ []string, want outcome, minOut int) float64 {
	const gnuTime = "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		b.Skipf("measuring memory needs GNU time: %v", err)
	}
	var most int
	for b.Loop() {
		cmd := exec.Command(gnuTime, append([]string{"-f", "maxrss=%M", strata}, args...)...)
		cmd.Env = environ
		var stdout counter
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := cmd.ProcessState.ExitCode()
		if code != 0 && code != 1 || want == succeeds && code != 0 || want == fails && code != 1 {
			b.Fatalf("%v: %.500s", err, stderr.String())
		}
		if code == 0 && int(stdout) < minOut {
			b.Fatalf("%d bytes of output, want %d or more: %.500s", stdout, minOut, stderr.String())
		}
		out := strings.TrimSpace(stderr.String())
		kb, err := strconv.Atoi(out[strings.LastIndex(out, "maxrss=")+len("maxrss="):])
		if err != nil {
			b.Fatalf("GNU time said %.500q", out)
		}
		most = max(most, kb)
	}
	return float64(most) / 1024
}

// counter counts the bytes written to it.
type counter int

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}

// deepLayer is a layer whose tools.x.options table nests so that its one
// value's key path has depth keys: the table of the issue that found
// printing quadratic.
func deepLayer(depth int) []byte {
	return []byte("[tools.x.options" + strings.Repeat(".a", depth-4) + "]\nv = 1\n")
}

// BenchmarkPrintDeep reads a layer nesting 10,000 and 30,000 levels deep
// (the depth limit raised to allow it) and writes it as strata merge
// does: the time per level stays the same as the depth grows (it grew
// with the depth when each level copied the key path).
func BenchmarkPrintDeep(b *testing.B) {
	for _, depth := range []int{10_000, 30_000} {
		data := deepLayer(depth)
		lim := codec.Limits{Depth: depth}
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := lim.Parse("deep.toml", data, partial.TOML)
				if err != nil {
					b.Fatal(err)
				}
				var p config.Partial
				if err := d.Decode(&p); err != nil {
					b.Fatal(err)
				}
				out, err := codec.Encode(&p, partial.TOML)
				if err != nil || len(out) < depth {
					b.Fatalf("%d bytes, %v", len(out), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth), "ns/level")
		})
	}
}

// BenchmarkPrintDeepProcess runs strata merge on a layer at the default
// depth limit, printing it, and reports its largest resident set.
func BenchmarkPrintDeepProcess(b *testing.B) {
	const self = testbin.Strata
	bins, err := testbin.Build(self)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "deep.toml")
	if err := os.WriteFile(path, deepLayer(1000), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(maxRSS(b, bins[self], []string{"merge", path}, []string{"PATH=/usr/bin:/bin"}, succeeds, 1000), "maxRSS-MB")
}

// BenchmarkLargestLayersProcess runs strata config on a workspace file
// that holds as many values as the limits let a load hold (the root, five
// tables and keys, and an array of numbers), in each format: the most
// memory a layer within the limits asks for.
func BenchmarkLargestLayersProcess(b *testing.B) {
	const self = testbin.Strata
	bins, err := testbin.Build(self)
	if err != nil {
		b.Fatal(err)
	}
	const n = limits.Values - 6
	items := strings.TrimSuffix(strings.Repeat("1,", n), ",")
	for _, tt := range []struct{ layer, content string }{
		{"config.toml", "[tools.x]\nsource = \"builtin\"\noptions.a = [" + items + "]\n"},
		{"config.json", `{"tools": {"x": {"source": "builtin", "options": {"a": [` + items + `]}}}}`},
		{"config.yaml", "tools:\n  x:\n    source: builtin\n    options:\n      a: [" + items + "]\n"},
	} {
		b.Run(tt.layer, func(b *testing.B) {
			root, home := hostile.Workspace(b)
			if err := os.WriteFile(filepath.Join(root, ".strata", tt.layer), []byte(tt.content), 0o644); err != nil {
				b.Fatal(err)
			}
			environ := []string{"PATH=/usr/bin:/bin", "HOME=" + home, "STRATA_CONFIG_HOME=" + home}
			// --trust: the layer is the workspace's; the output holds
			// every number of the array.
			b.ReportMetric(maxRSS(b, bins[self], []string{"config", "--trust", "--root", root}, environ, succeeds, 2*n), "maxRSS-MB")
		})
	}
}
