package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-config/strata/internal/testbin"
)

// BenchmarkLoadProcess loads the five 1,000-tool layers of BenchmarkLoad
// as whole processes, and reports the largest resident set of each
// (maxRSS-MB) besides its time: strata merge of the five files (decode,
// merge, and the merged layer printed), strata config with the five files
// as --cfg layers (decode, merge and finalize, printing only the list of
// layers), and koanf loading them (koanfload); and strata config of 1,000,
// 10,000 and 50,000 small tools (SmallLayers: four values a tool, in files
// of at most 900 KB), a catalog of many tools, both by the CLI and by
// confighostload, a host that links the config core alone (load, config,
// partial: what fixtures/confighost links), which loads the same files as
// --cfg layers: the CLI's resident set carries its larger binary's pages
// and the initialisation of what it links besides. Each iteration also runs
// the floor, floortoml (go-toml/v2 decoding the same bytes into typed
// structs, as BenchmarkLoad/floor-gotoml), untimed: floor-maxRSS-MB is its
// largest resident set, x-floor-maxRSS the ratio of the two largest, and
// x-floor the ratio of the times in the same iterations. For the small
// tools, each iteration also runs both programs loading no file
// (strata config --sources of the empty setup, confighostload and
// floortoml without arguments), untimed: x-floor-added is what the load
// adds to the largest resident set over that, against what it adds to
// the floor's, leaving out what each program costs before it reads a
// file (the CLI's 34 MB binary and its initialisation). The programs are
// built with cgo off, as the README installs strata (and as the other
// whole-process benchmarks build it): with cgo, libc and its loader add
// about 1.5 MB to every resident set, and to strata's only (the floor
// links no net or os/user, so it is static either way).
func BenchmarkLoadProcess(b *testing.B) {
	const (
		self  = testbin.Strata
		floor = "github.com/strata-config/strata/internal/bench/floortoml"
		koanf = "github.com/strata-config/strata/internal/bench/koanfload"
		host  = "github.com/strata-config/strata/internal/bench/confighostload"
	)
	bins, err := testbin.BuildStatic(self, floor, koanf, host)
	if err != nil {
		b.Fatal(err)
	}
	paths, err := Files("testdata", layerCount, toolCount)
	if err != nil {
		b.Fatal(err)
	}
	for i, p := range paths {
		if paths[i], err = filepath.Abs(p); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	// No user file, no workspace: the five layers alone.
	environ := []string{"PATH=/usr/bin:/bin", "HOME=" + home, "STRATA_CONFIG_HOME=" + home}
	config := []string{"config", "--sources"}
	for _, p := range paths {
		config = append(config, "--cfg", p)
	}
	type run struct {
		name   string
		args   []string
		floor  []string // the floor's files
		minOut int      // bytes the command prints at least
		empty  []string // the same program loading no file, or nil
	}
	runs := []run{
		{"strata-merge", append([]string{bins[self], "merge"}, paths...), paths, 500_000, nil},
		{"strata-config", append([]string{bins[self]}, config...), paths, 100, nil},
		{"koanf", append([]string{bins[koanf]}, paths...), paths, 1, nil},
	}
	for _, n := range []int{1_000, 10_000, 50_000} {
		small, err := SmallLayers("testdata", n)
		if err != nil {
			b.Fatal(err)
		}
		args := []string{bins[self], "config", "--sources"}
		for i, p := range small {
			if small[i], err = filepath.Abs(p); err != nil {
				b.Fatal(err)
			}
			args = append(args, "--cfg", small[i])
		}
		runs = append(runs, run{fmt.Sprintf("strata-config-%dk-small", n/1000), args, small, 100, []string{bins[self], "config", "--sources"}})
		// The same load in a host that links the config core alone.
		runs = append(runs, run{fmt.Sprintf("confighost-%dk-small", n/1000), append([]string{bins[host]}, small...), small, 10, []string{bins[host]}})
	}
	for _, c := range runs {
		b.Run(c.name, func(b *testing.B) {
			var most, floorMost, emptyMost, floorEmptyMost int
			var took, floorTook time.Duration
			for b.Loop() {
				rss, d := runRSS(b, c.args, environ, work, c.minOut)
				b.StopTimer()
				frss, fd := runRSS(b, append([]string{bins[floor]}, c.floor...), environ, work, 1)
				if c.empty != nil {
					erss, _ := runRSS(b, c.empty, environ, work, 1)
					ferss, _ := runRSS(b, []string{bins[floor]}, environ, work, 1)
					emptyMost, floorEmptyMost = max(emptyMost, erss), max(floorEmptyMost, ferss)
				}
				b.StartTimer()
				most, floorMost = max(most, rss), max(floorMost, frss)
				took, floorTook = took+d, floorTook+fd
			}
			b.ReportMetric(float64(most)/1024, "maxRSS-MB")
			b.ReportMetric(float64(floorMost)/1024, "floor-maxRSS-MB")
			b.ReportMetric(float64(most)/float64(floorMost), "x-floor-maxRSS")
			b.ReportMetric(float64(took)/float64(floorTook), "x-floor")
			if c.empty != nil {
				// What the load adds to each program's resident set over
				// the same program loading no file: the CLI's larger
				// binary and its initialisation left out.
				b.ReportMetric(float64(most-emptyMost)/float64(floorMost-floorEmptyMost), "x-floor-added")
			}
		})
	}
}

// runRSS runs args[0] with the rest of args, in dir, under GNU time, and
// returns its largest resident set in KiB and how long it took; it must
// succeed and print at least minOut bytes. (The rusage of a child started
// by os/exec would not do: see maxRSS.)
func runRSS(b *testing.B, args, environ []string, dir string, minOut int) (int, time.Duration) {
	const gnuTime = "/usr/bin/time"
	if _, err := os.Stat(gnuTime); err != nil {
		b.Skipf("measuring memory needs GNU time: %v", err)
	}
	cmd := exec.Command(gnuTime, append([]string{"-f", "maxrss=%M"}, args...)...)
	cmd.Env, cmd.Dir = environ, dir
	var stdout counter
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil || int(stdout) < minOut {
		b.Fatalf("%s: %v, %d bytes of output: %.500s", filepath.Base(args[0]), err, stdout, stderr.String())
	}
	out := strings.TrimSpace(stderr.String())
	kb, err := strconv.Atoi(out[strings.LastIndex(out, "maxrss=")+len("maxrss="):])
	if err != nil {
		b.Fatalf("GNU time said %.500q", out)
	}
	return kb, d
}
