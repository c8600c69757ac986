package load_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/hostile"
)

// TestHostileInputs loads each hostile input: it ends with one problem
// that names its place, as many more as the limit allows (and a count of
// the rest), each of them short.
func TestHostileInputs(t *testing.T) {
	for _, in := range hostile.Inputs() {
		t.Run(in.Name, func(t *testing.T) {
			root, home := hostile.Workspace(t)
			in.Write(t, root)
			a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: root, Cfg: in.Cfg,
				Environ: append([]string{"STRATA_CONFIG_HOME=" + home}, in.Env...)}
			res, err := a.Load(context.Background())
			if in.Where == hostile.Accepted {
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Config.Tools["x"].Summary; got != "BOM" {
					t.Errorf("summary %q, want BOM", got)
				}
				return
			}
			if err == nil {
				t.Fatal("loaded without a problem")
			}
			checkHostile(t, in, root, diag.All(err))
		})
	}
}

// checkHostile checks the problems of a hostile input: the first names
// its place and says what Want says; there are at most the default
// number, and none is long.
func checkHostile(t *testing.T, in hostile.Input, root string, es []*diag.Error) {
	t.Helper()
	first := es[0]
	var source string
	switch in.Where {
	case hostile.AtLine, hostile.AtFile:
		source = in.Source(root)
	case hostile.AtEnv:
		source = "env STRATA_"
	case hostile.AtCfg:
		source = "--cfg #1"
	}
	if !strings.HasPrefix(first.Source, source) {
		t.Errorf("first problem %.300q names %q, want %q", first.Error(), first.Source, source)
	}
	if hasLine := first.Line > 0 && first.Column > 0; hasLine != (in.Where == hostile.AtLine) {
		t.Errorf("first problem %.300q at %d:%d; want a line and column: %v", first.Error(), first.Line, first.Column, in.Where == hostile.AtLine)
	}
	if !strings.Contains(first.Error(), in.Want) {
		t.Errorf("first problem %.300q, want it to say %q", first.Error(), in.Want)
	}
	if len(es) > 101 {
		t.Errorf("%d problems, want at most 100 and a count of the others", len(es))
	}
	for _, e := range es[1:] {
		if e.Msg == first.Msg && !strings.Contains(e.Msg, "twice") && !strings.Contains(e.Msg, "unknown key") {
			t.Errorf("the problem is reported again: %.300q", e.Error())
		}
	}
	for _, e := range es {
		if len(e.Error()) > 2000 || len(e.Render()) > 3000 {
			t.Errorf("a problem of %d bytes (%d rendered): %.300q", len(e.Error()), len(e.Render()), e.Error())
		}
	}
}

// TestReadFileRefusesSpecialFiles: only a regular file is read; anything
// else is refused before a byte is read, without waiting for a writer.
func TestReadFileRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	if err := hostile.Mkfifo(path("fifo.toml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", path("zero.toml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path("dir.toml"), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path("sock.toml"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	tests := []struct {
		name, want string
	}{
		{"fifo.toml", "is a named pipe, not a layer file"},
		{"zero.toml", "is a device (through a symbolic link to /dev/zero), not a layer file"},
		{"dir.toml", "is a directory, not a layer file"},
		{"sock.toml", "is a socket, not a layer file"},
		{"missing.toml", "cannot read: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := codec.Limits{}.ReadFile(context.Background(), path(tt.name))
			if data != nil {
				t.Errorf("read %d bytes", len(data))
			}
			want := []*diag.Error{{Code: diag.CodeRead, Source: path(tt.name), Msg: tt.want}}
			got := diag.All(err)
			for _, e := range got {
				e.Hint, e.Err = "", nil // what the message says is checked
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadFileLimit: the size limit holds while reading, whatever the file
// says its size is.
func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	at := filepath.Join(dir, "at.toml")
	over := filepath.Join(dir, "over.toml")
	if err := os.WriteFile(at, []byte(strings.Repeat("#", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, []byte(strings.Repeat("#", 1001)), 0o644); err != nil {
		t.Fatal(err)
	}
	lim := codec.Limits{FileSize: 1000}
	if data, err := lim.ReadFile(context.Background(), at); err != nil || len(data) != 1000 {
		t.Errorf("a file at the limit: %d bytes, %v", len(data), err)
	}
	_, err := lim.ReadFile(context.Background(), over)
	if got := errText(err); got != over+": is larger than 1,000 bytes, the limit for a layer file" {
		t.Errorf("a file over the limit: %s", got)
	}
	// A file of /proc says it is empty, and is not.
	const proc = "/proc/self/status"
	if info, err := os.Stat(proc); err != nil || info.Size() != 0 {
		t.Skipf("%s: %v", proc, err)
	}
	_, err = codec.Limits{FileSize: 10}.ReadFile(context.Background(), proc)
	if got := errText(err); got != proc+": is larger than 10 bytes, the limit for a layer file" {
		t.Errorf("a file that says it is empty: %s", got)
	}
}

// TestReadFileCancelled: a cancelled context stops a read, and is the
// cause of its problem.
func TestReadFileCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.toml")
	if err := os.WriteFile(path, []byte("x = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := codec.Limits{}.ReadFile(ctx, path)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(errText(err), path+": ") {
		t.Errorf("got %v, want a problem of %s caused by context.Canceled", err, path)
	}
	// Load stops the same way.
	root, home := hostile.Workspace(t)
	if err := os.WriteFile(filepath.Join(root, ".strata", "config.toml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: root, Environ: []string{"STRATA_CONFIG_HOME=" + home}}
	if _, err := a.Load(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a cancelled context: %v", err)
	}
}

// TestExtendsReadsEachFileOnce: a file that two extends name is two layers
// but one read, and its problems are reported once.
func TestExtendsReadsEachFileOnce(t *testing.T) {
	root := tree(t, map[string]string{
		"w/.strata/config.toml": "extends = [\"a.toml\", \"b.toml\"]\n",
		"w/.strata/a.toml":      "extends = [\"c.toml\"]\n",
		"w/.strata/b.toml":      "extends = [\"c.toml\"]\n",
		"w/.strata/c.toml":      summary("c"),
	})
	res, err := loadIn(t, root, "w", nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range res.Layers {
		names = append(names, filepath.Base(l.Name))
	}
	if diff := cmp.Diff([]string{"c.toml", "a.toml", "c.toml", "b.toml", "config.toml"}, names); diff != "" {
		t.Errorf("layers (-want +got):\n%s", diff)
	}
	if res.Layers[0].Partial != res.Layers[2].Partial {
		t.Error("c.toml was decoded twice")
	}
	if err := os.WriteFile(filepath.Join(root, "w/.strata/c.toml"), []byte("[tools.t]\nrnu = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = loadIn(t, root, "w", nil)
	if got, want := errText(err), filepath.Join(root, "w/.strata/c.toml")+":2:1: tools.t.rnu: unknown key; did you mean run?"; got != want {
		t.Errorf("\n got: %s\nwant: %s", got, want)
	}
}

// TestExtendsFileLimit: a chain reads up to the limit, counting a file
// once per extends that names it, and stops past it with one problem at
// the entry that went over.
func TestExtendsFileLimit(t *testing.T) {
	files := map[string]string{"w/.strata/config.toml": "extends = [\"d/*.toml\"]\n"}
	for _, n := range []string{"1", "2", "3"} {
		files["w/.strata/d/"+n+".toml"] = "extends = [\"../e.toml\"]\n"
	}
	files["w/.strata/e.toml"] = ""
	root := tree(t, files)
	load := func(max int) error {
		a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "w"),
			Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}, Limits: codec.Limits{Files: max}}
		_, err := a.Load(context.Background())
		return err
	}
	// d/1, e, d/2, e, d/3, e: six files.
	if err := load(6); err != nil {
		t.Errorf("at the limit: %v", err)
	}
	want := filepath.Join(root, "w/.strata/d/3.toml") + ":1:12: extends.0: the extends of " + filepath.Join(root, "w/.strata/config.toml") +
		" read more than 5 files, the limit (counting a file once for each extends that names it); extend fewer files, or have one file extend them all once"
	if got := errText(load(5)); got != want {
		t.Errorf("past the limit:\n got: %s\nwant: %s", got, want)
	}
}

// TestProblemsLimitAcrossFiles: the problems of a load are counted past
// the limit, whichever file they are in.
func TestProblemsLimitAcrossFiles(t *testing.T) {
	bad := "[tools.t]\n" + strings.Repeat("rnu = 1\n", 1)
	var many strings.Builder
	many.WriteString("[tools.t]\n")
	for i := range 30 {
		many.WriteString("k" + strings.Repeat("x", i) + " = 1\n")
	}
	root := tree(t, map[string]string{
		"w/.strata/config.toml": many.String(),
		"w/.strata.toml":        many.String(),
		"home/config.toml":      bad,
	})
	a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "w"),
		Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home")}, Limits: codec.Limits{Problems: 20}}
	_, err := a.Load(context.Background())
	es := diag.All(err)
	if len(es) != 21 || es[20].Error() != "… and 41 more problems" {
		t.Errorf("%d problems, the last %q; want 20 and … and 41 more problems", len(es), es[len(es)-1].Error())
	}
	if !strings.HasPrefix(err.Error(), filepath.Join(root, "home/config.toml")+":2:1: tools.t.rnu: unknown key") || !strings.HasSuffix(err.Error(), "(and 60 more problems)") {
		t.Errorf("summary %q", err.Error())
	}
}

func TestLimitsWithDefaults(t *testing.T) {
	want := codec.Limits{Depth: 1000, FileSize: 1 << 20, Files: 64, Problems: 100, Quote: 100, Total: 8 << 20, Values: 320_000, ServerTools: 10_000, ServerListing: 4 << 20}
	if diff := cmp.Diff(want, codec.Limits{}.WithDefaults()); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
	raised := codec.Limits{Depth: 5000, FileSize: 1 << 30, Files: 1, Problems: 7, Quote: 3, Total: 1 << 31, Values: 1 << 24, ServerTools: 2, ServerListing: 1 << 30}
	if diff := cmp.Diff(raised, raised.WithDefaults()); diff != "" {
		t.Errorf("a host's limits changed (-want +got):\n%s", diff)
	}
}

// TestRaisedDepth: a host that raises the depth reads what the default
// refuses, in every source.
func TestRaisedDepth(t *testing.T) {
	deep := "[tools.x.options" + strings.Repeat(".a", 1500) + "]\nv = 1\n"
	root := tree(t, map[string]string{"w/.strata/config.toml": deep})
	for _, tt := range []struct {
		depth int
		ok    bool
	}{{0, false}, {1504, true}, {1503, false}} {
		a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "w"),
			Environ: []string{"STRATA_CONFIG_HOME=" + filepath.Join(root, "home"), "STRATA_TOOLS__X__OPTIONS__B=1"},
			Cfg:     []string{"tools.x.options" + strings.Repeat(".c", 1400) + "=1"},
			Limits:  codec.Limits{Depth: tt.depth}}
		_, err := a.Load(context.Background())
		if (err == nil) != tt.ok {
			t.Errorf("depth %d: %v, want success %v", tt.depth, err, tt.ok)
		}
	}
}

// TestTotalLimit: the files of one load hold at most Total bytes together,
// however many extends name them.
func TestTotalLimit(t *testing.T) {
	root := t.TempDir()
	var names []string
	for i := range 6 {
		name := fmt.Sprintf("w/.strata/d/%d.toml", i)
		names = append(names, fmt.Sprintf("%q", fmt.Sprintf("d/%d.toml", i)))
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+strings.Repeat("x", 1000)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "w/.strata/config.toml"), []byte("extends = ["+strings.Join(names, ", ")+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := app{Name: "strata", Defaults: config.Default(), Trust: trustAll{}, Dir: filepath.Join(root, "w"), Environ: []string{"STRATA_CONFIG_HOME=" + root + "/home"},
		Limits: codec.Limits{Total: 3500}}
	_, err := a.Load(context.Background())
	if err == nil || !strings.Contains(err.Error(), "the layer files of this load hold more than 3,500 bytes in all, the limit") {
		t.Errorf("err = %v", err)
	}
}
