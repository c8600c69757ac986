//go:build unix

package procs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// mkdirMode makes dir with mode, past the umask.
func mkdirMode(t *testing.T, dir string, mode os.FileMode) {
	t.Helper()
	if err := os.Mkdir(dir, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
}

func TestCheckBase(t *testing.T) {
	t.Parallel()
	me := os.Geteuid()
	tests := []struct {
		name string
		make func(t *testing.T, base string)
		want string // the error with "$BASE"; "" for none
	}{
		{"private", func(t *testing.T, base string) { mkdirMode(t, base, 0o700) }, ""},
		{"readable by others", func(t *testing.T, base string) { mkdirMode(t, base, 0o755) }, ""},
		{"missing", func(t *testing.T, base string) {},
			"$BASE, where strata starts the programs of workspaces not trusted: no such file or directory"},
		{"writable by others", func(t *testing.T, base string) { mkdirMode(t, base, 0o777) },
			"$BASE, where strata starts the programs of workspaces not trusted, is writable by others (mode -rwxrwxrwx): anyone could put files there for your programs; remove it (strata makes it again, private to you)"},
		{"writable by others, sticky", func(t *testing.T, base string) {
			mkdirMode(t, base, 0o777)
			if err := os.Chmod(base, 0o777|os.ModeSticky); err != nil {
				t.Fatal(err)
			}
		}, "$BASE, where strata starts the programs of workspaces not trusted, is writable by others (mode -rwxrwxrwx): anyone could put files there for your programs; remove it (strata makes it again, private to you)"},
		{"writable by its group", func(t *testing.T, base string) { mkdirMode(t, base, 0o770) },
			"$BASE, where strata starts the programs of workspaces not trusted, is writable by its group (mode -rwxrwx---): its group could put files there for your programs; remove it (strata makes it again, private to you)"},
		{"in a directory anyone may write to", func(t *testing.T, base string) {
			mkdirMode(t, base, 0o700)
			if err := os.Chmod(filepath.Dir(base), 0o777|os.ModeSticky); err != nil {
				t.Fatal(err)
			}
		}, "$BASE, where strata would start the programs of workspaces not trusted, is in $PARENT, which anyone may write to: programs look for node_modules, .git and settings in the directories above where they start; set XDG_CACHE_HOME or HOME (or XDG_RUNTIME_DIR), or give the host a CacheDir, so that strata starts them in a directory of yours"},
		{"a link to a private directory", func(t *testing.T, base string) {
			mkdirMode(t, base+".real", 0o700)
			if err := os.Symlink(base+".real", base); err != nil {
				t.Fatal(err)
			}
		}, "$BASE, where strata starts the programs of workspaces not trusted, is a symbolic link, which could lead anywhere; remove it (strata makes it again, private to you)"},
		{"a file", func(t *testing.T, base string) {
			if err := os.WriteFile(base, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "$BASE, where strata starts the programs of workspaces not trusted, is not a directory; remove it (strata makes it again, private to you)"},
		{"another user's", func(t *testing.T, base string) {
			if me != 0 {
				t.Skip("needs root to give a directory to another user")
			}
			mkdirMode(t, base, 0o700)
			if err := os.Chown(base, 4242, 4242); err != nil {
				t.Fatal(err)
			}
		}, fmt.Sprintf("$BASE, where strata starts the programs of workspaces not trusted, is owned by uid 4242, not by you (uid %d): its owner could put files there for your programs; remove it (strata makes it again, private to you)", me)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := filepath.Join(t.TempDir(), "base")
			tc.make(t, base)
			got := ""
			if err := CheckBase(base); err != nil {
				got = err.Error()
			}
			want := strings.NewReplacer("$BASE", base, "$PARENT", filepath.Dir(base)).Replace(tc.want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("CheckBase (-want +got):\n%s", diff)
			}
			// PrivateDir makes nothing in a base that fails.
			dir, release, err := PrivateDir(base)
			if tc.want == "" || tc.name == "missing" {
				if err != nil {
					t.Fatalf("PrivateDir: %v", err)
				}
				release()
				return
			}
			if err == nil || err.Error() != got {
				t.Errorf("PrivateDir: %q, %v; want the error of CheckBase", dir, err)
			}
		})
	}
}

// TestPrivateDir: each directory is new, empty, private to the user, in
// its base, and gone after release with what was written there; a missing
// base is made private, parents and all.
func TestPrivateDir(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "cache", "start")
	a, releaseA, err := PrivateDir(base)
	if err != nil {
		t.Fatal(err)
	}
	b, releaseB, err := PrivateDir(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{base, filepath.Dir(base), a, b} {
		info, err := os.Lstat(d)
		if err != nil || info.Mode() != os.ModeDir|0o700 {
			t.Errorf("%s: %v, %v; want a directory of mode 0700", d, info, err)
		}
	}
	if a == b || filepath.Dir(a) != base || filepath.Dir(b) != base {
		t.Errorf("directories %s and %s; want two new ones in %s", a, b, base)
	}
	if err := os.MkdirAll(filepath.Join(a, "node_modules", ".bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a, "sitecustomize.py"), []byte("import os"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, b); len(got) != 0 {
		t.Errorf("%s holds %v", b, got)
	}
	releaseA()
	if _, err := os.Lstat(a); !os.IsNotExist(err) {
		t.Errorf("%s after release: %v", a, err)
	}
	releaseB()
	if got := entries(t, base); len(got) != 0 {
		t.Errorf("%s holds %v after every release", base, got)
	}
	if _, _, err := PrivateDir("relative/base"); err == nil {
		t.Error("PrivateDir of a relative base: no error")
	}
}

// TestRunPrivate: a run with Private starts in a new, empty directory of
// the base, which is gone when Run returns, whatever the program left.
func TestRunPrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, script(`pwd; ls -A; mkdir -p node_modules/.bin; echo x > sitecustomize.py`))
	base := filepath.Join(dir, "start")
	s := Invocation{Program: filepath.Join(dir, "tools/run.sh"), Dir: base, Private: true, Env: []string{"PATH=/usr/bin:/bin"}}
	var seen []string
	for range 2 {
		res, err := runUnbusy(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(res.Stdout)), "\n")
		if len(lines) != 1 || filepath.Dir(lines[0]) != base {
			t.Errorf("the program said %q; want only a directory of %s, empty", res.Stdout, base)
		}
		if _, err := os.Lstat(lines[0]); !os.IsNotExist(err) {
			t.Errorf("%s after Run: %v", lines[0], err)
		}
		seen = append(seen, lines[0])
	}
	if seen[0] == seen[1] {
		t.Errorf("both runs started in %s", seen[0])
	}
	if got := entries(t, base); len(got) != 0 {
		t.Errorf("%s holds %v", base, got)
	}

	// A relative program has nothing to run in a new directory.
	s.Program = "tools/run.sh"
	_, err := runUnbusy(t.Context(), s)
	want := errOf{Kind: KindStart, Msg: "tools/run.sh: a relative path, and the program starts in a new, empty directory"}
	if diff := cmp.Diff(want, describe(t, err)); diff != "" {
		t.Errorf("relative program (-want +got):\n%s", diff)
	}
}

// TestRunPrivateRefusesBase: nothing runs over a base another user could
// have prepared; the error says why and what to do.
func TestRunPrivateRefusesBase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, script(`touch `+dir+`/ran`))
	base := filepath.Join(dir, "start")
	mkdirMode(t, base, 0o777)
	_, err := runUnbusy(t.Context(), Invocation{Program: filepath.Join(dir, "tools/run.sh"), Dir: base, Private: true})
	want := errOf{Kind: KindStart, Msg: filepath.Join(dir, "tools/run.sh") + ": " + base + ", where strata starts the programs of workspaces not trusted, is writable by others (mode -rwxrwxrwx): anyone could put files there for your programs; remove it (strata makes it again, private to you)"}
	if diff := cmp.Diff(want, describe(t, err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the program ran")
	}
	if got := entries(t, base); len(got) != 0 {
		t.Errorf("%s holds %v", base, got)
	}
}

// TestCommandPrivate: a command's directory is made by Start and removed
// by Wait, or by a Start that fails.
func TestCommandPrivate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, script(`pwd > `+dir+`/pwd`), file{path: "tools/bad.sh", content: "#!/nonexistent/interpreter\n"})
	base := filepath.Join(dir, "start")
	cmd, err := Command(t.Context(), Invocation{Program: filepath.Join(dir, "tools/run.sh"), Dir: base, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Dir != "" {
		t.Errorf("Dir before Start: %q", cmd.Dir)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := cmd.Dir
	if filepath.Dir(started) != base {
		t.Errorf("Dir after Start: %q; want a directory of %s", started, base)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(readString(t, filepath.Join(dir, "pwd"))); got != started {
		t.Errorf("the program started in %q; want %q", got, started)
	}
	if _, err := os.Lstat(started); !os.IsNotExist(err) {
		t.Errorf("%s after Wait: %v", started, err)
	}

	cmd, err = Command(t.Context(), Invocation{Program: filepath.Join(dir, "tools/bad.sh"), Dir: base, Private: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err == nil {
		cmd.Wait()
		t.Fatal("a program whose interpreter is missing started")
	}
	if got := entries(t, base); len(got) != 0 {
		t.Errorf("%s holds %v after a failed Start", base, got)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSweepPrivate: a sweep removes the directories of PrivateDir that a
// strata that ended left (no lock, older than StaleAfter), and nothing
// else: not one in use however old, not a new one, not another name, not
// a link, nothing in a base that fails CheckBase.
func TestSweepPrivate(t *testing.T) {
	t.Parallel()
	old := time.Now().Add(-2 * StaleAfter)
	age := func(t *testing.T, p string) {
		t.Helper()
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	base := filepath.Join(t.TempDir(), "start")
	live, release, err := PrivateDir(base)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	age(t, live)
	left := filepath.Join(base, "run-left")
	mkdirMode(t, left, 0o700)
	if err := os.WriteFile(filepath.Join(left, "sitecustomize.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	age(t, left)
	fresh := filepath.Join(base, "run-fresh")
	mkdirMode(t, fresh, 0o700)
	other := filepath.Join(base, "other")
	mkdirMode(t, other, 0o700)
	age(t, other)
	target := filepath.Join(t.TempDir(), "target")
	mkdirMode(t, target, 0o700)
	age(t, target)
	if err := os.Symlink(target, filepath.Join(base, "run-link")); err != nil {
		t.Fatal(err)
	}

	if n := SweepPrivate(base); n != 1 {
		t.Errorf("SweepPrivate removed %d; want 1", n)
	}
	want := []string{"other", filepath.Base(live), "run-fresh", "run-link"}
	slices.Sort(want)
	if diff := cmp.Diff(want, entries(t, base)); diff != "" {
		t.Errorf("left in the base (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the target of a link: %v", err)
	}

	// A base open to others is not swept: what is there may not be ours.
	hostile := filepath.Join(t.TempDir(), "start")
	mkdirMode(t, hostile, 0o777)
	mkdirMode(t, filepath.Join(hostile, "run-x"), 0o700)
	age(t, filepath.Join(hostile, "run-x"))
	if n := SweepPrivate(hostile); n != 0 {
		t.Errorf("SweepPrivate removed %d in a base open to others", n)
	}
}
