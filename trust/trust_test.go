package trust_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/trust"
)

func TestTrusts(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ws/sub", "ws-evil", "wsother", "elsewhere", "src/a/b", "src-evil"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), link); err != nil {
		t.Fatal(err)
	}
	var l trust.List
	l.AddWorkspace(filepath.Join(dir, "ws"))
	l.AddRecursive(filepath.Join(dir, "src"))
	tests := []struct {
		dir  string
		want bool
	}{
		{"ws", true},
		{"ws/sub", false},   // an exact entry trusts that directory alone
		{"ws-evil", false},  // a sibling whose name starts with the entry's
		{"wsother", false},  // a prefix of the name is not the directory
		{".", false},        // nor the directory above
		{"link", false},     // a link to an untrusted directory
		{"src", true},       // a recursive entry trusts itself
		{"src/a/b", true},   // and everything below it
		{"src-evil", false}, // but not a sibling
		{"ws/sub/..", true}, // paths are cleaned
	}
	for _, tt := range tests {
		if got := l.Trusts(filepath.Join(dir, tt.dir)); got != tt.want {
			t.Errorf("Trusts(%s) = %v, want %v", tt.dir, got, tt.want)
		}
	}
	// A trusted link trusts where it points, and only that.
	var ll trust.List
	ll.AddWorkspace(link)
	if !ll.Trusts(filepath.Join(dir, "elsewhere")) || ll.Trusts(filepath.Join(dir, "ws")) {
		t.Errorf("a link: %v", ll.Workspaces)
	}
}

// TestTrustsOldList: a list written when entries were prefixes is read
// with each entry exact.
func TestTrustsOldList(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := &trust.Store{Path: filepath.Join(dir, trust.File)}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, "clone"), 0o755); err != nil {
		t.Fatal(err)
	}
	old := "# What you trust; written by `strata trust`. Workspaces listed here may\n# apply their own config files; pins hold launches to what they were.\nworkspaces = [\"" + home + "\"]\n"
	if err := os.WriteFile(s.Path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	if !l.Trusts(home) || l.Trusts(filepath.Join(home, "clone")) {
		t.Errorf("an old entry: Trusts(home) %v, Trusts(home/clone) %v; want true, false", l.Trusts(home), l.Trusts(filepath.Join(home, "clone")))
	}
}

// TestForget: forgetting a directory removes its entries and the pins of
// the launches that start there; an unknown directory is an error with a
// suggestion.
func TestForget(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b, src := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "src")
	l := trust.List{Pins: map[string]trust.Pin{
		"tools.x":       {Dir: a},
		"mcp_servers.y": {Dir: b},
		"mcp_servers.z": {Dir: filepath.Join(src, "p")},
		"tools.w":       {Dir: filepath.Join(a, "sub")},
	}}
	l.AddWorkspace(a)
	l.AddWorkspace(b)
	l.AddRecursive(src)
	pins, err := l.Forget(a)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"tools.x"}, pins); diff != "" {
		t.Errorf("the pins of an exact entry (-want +got):\n%s", diff)
	}
	if pins, err = l.Forget(src); err != nil || !cmp.Equal(pins, []string{"mcp_servers.z"}) {
		t.Errorf("a recursive entry: %v, %v", pins, err)
	}
	want := trust.List{Workspaces: []string{b}, Recursive: []string{}, Pins: map[string]trust.Pin{"mcp_servers.y": {Dir: b}, "tools.w": {Dir: filepath.Join(a, "sub")}}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("the list (-want +got):\n%s", diff)
	}
	_, err = l.Forget(filepath.Join(dir, "bb"))
	if err == nil || !strings.Contains(err.Error(), "not in the trust list; did you mean "+b+"?") {
		t.Errorf("an unknown directory: %v", err)
	}
}

func TestStoreUpdate(t *testing.T) {
	s := &trust.Store{Path: filepath.Join(t.TempDir(), "d", trust.File)}
	if l, err := s.Read(); err != nil || len(l.Workspaces) != 0 {
		t.Fatalf("a missing list: %v, %v", l, err)
	}
	dirs := make([]string, 20)
	for i := range dirs {
		dirs[i] = t.TempDir()
	}
	var wg sync.WaitGroup
	for _, d := range dirs {
		wg.Go(func() {
			if err := s.Update(func(l *trust.List) error { l.AddWorkspace(d); return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	l, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Workspaces) != len(dirs) {
		t.Errorf("%d workspaces after %d concurrent updates", len(l.Workspaces), len(dirs))
	}
	top := t.TempDir()
	if err := s.Update(func(l *trust.List) error { l.AddRecursive(top); return nil }); err != nil {
		t.Fatal(err)
	}
	if l, err := s.Read(); err != nil || len(l.Recursive) != 1 || !l.Trusts(filepath.Join(top, "x")) || len(l.Workspaces) != len(dirs) {
		t.Errorf("a recursive entry read back: %v, %v", l, err)
	}
	info, err := os.Stat(s.Path)
	if err != nil || info.Mode().Perm()&0o022 != 0 {
		t.Errorf("the list's mode: %v, %v", info, err)
	}
	if err := os.WriteFile(s.Path, []byte("workspaces = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(); err == nil || !strings.Contains(err.Error(), trust.File+":1:") {
		t.Errorf("a broken list: %v", err)
	}
}

func TestPin(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	script := filepath.Join(dir, "script.py")
	for _, f := range []string{prog, script} {
		if err := os.WriteFile(f, []byte("v1"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	python := filepath.Join(dir, "python3")
	if err := os.WriteFile(python, []byte("interpreter"), 0o755); err != nil {
		t.Fatal(err)
	}
	launch := trust.Launch{Program: prog, Args: []string{"-x"}, Env: trust.LaunchEnv(map[string]string{"A": "1"}, []string{"TOKEN"}), Dir: dir}
	pin, err := launch.Pin()
	if err != nil {
		t.Fatal(err)
	}
	// The value A=1 is held by its hash, the inherited TOKEN by its name.
	if diff := cmp.Diff([]string{"A=sha256:f1d316d330440dea46d96ad43f6562ff9411c1b84700794dcd584f18146a18f6", "TOKEN"}, pin.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	changed := func(f func(l *trust.Launch)) trust.Launch {
		l := launch
		f(&l)
		return l
	}
	tests := []struct {
		name   string
		launch trust.Launch
		want   string
	}{
		{"same", launch, ""},
		{"args", changed(func(l *trust.Launch) { l.Args = []string{"-y"} }), "its arguments differ"},
		{"env", changed(func(l *trust.Launch) { l.Env = []string{"A=2", "TOKEN"} }), "its environment differs"},
		{"dir", changed(func(l *trust.Launch) { l.Dir = "/" }), "its directory is /"},
		{"program", changed(func(l *trust.Launch) { l.Program = script }), "the program is " + script},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pin.Check(tt.launch)
			if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
	// An interpreter's pin covers its script.
	ip, err := trust.Launch{Program: python, Args: []string{"script.py"}, Dir: dir}.Pin()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("v2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ip.Check(trust.Launch{Program: python, Args: []string{"script.py"}, Dir: dir}); err == nil || !strings.Contains(err.Error(), script+" changed") {
		t.Errorf("a changed script: %v", err)
	}
	if !trust.IsInterpreter("/usr/bin/python3.12") || !trust.IsInterpreter("npx") || trust.IsInterpreter(prog) {
		t.Error("IsInterpreter")
	}
}

// TestStoreReadProblems holds what a broken trust list says: every
// problem, positioned, as a layer file's.
func TestStoreReadProblems(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"syntax", "workspaces = [\n", []string{`trusted.toml:1:15: TOML syntax: array is incomplete; an array is closed with "]" after its last value (values separated by ","): is one left open?`}},
		{"wrong type", "workspaces = 3\n", []string{"trusted.toml:1:14: workspaces: expected an array or { value = [...], strategy = ... }, found integer 3"}},
		{"unknown keys", "workspace = []\nrecursiv = []\n", []string{
			"trusted.toml:1:1: workspace: unknown key; did you mean workspaces?",
			"trusted.toml:2:1: recursiv: unknown key; did you mean recursive?",
		}},
		{"duplicate", "workspaces = []\nworkspaces = []\n", []string{"trusted.toml:2:1: workspaces: workspaces is defined twice (first at line 1, column 1)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := &trust.Store{Path: filepath.Join(dir, trust.File)}
			if err := os.WriteFile(s.Path, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := s.Read()
			var got []string
			for _, e := range diag.All(err) {
				got = append(got, strings.TrimPrefix(e.Error(), dir+string(filepath.Separator)))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems mismatch (-want +got):\n%s", diff)
			}
		})
	}
	dir := t.TempDir()
	if _, err := (&trust.Store{Path: dir}).Read(); err == nil || err.Error() != dir+": is a directory, not a layer file; a layer is a regular file" {
		t.Errorf("a directory: %v", err)
	}
}
