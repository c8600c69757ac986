//go:build unix

package exe_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/internal/exe"
)

func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	bin, plain, other := filepath.Join(dir, "bin"), filepath.Join(dir, "plain"), filepath.Join(dir, "other")
	for _, d := range []string{bin, plain, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(bin, "tool"), 0o755)
	write(filepath.Join(plain, "tool"), 0o644) // not executable: skipped
	write(filepath.Join(plain, "data"), 0o644)
	if err := os.Mkdir(filepath.Join(other, "tool"), 0o755); err != nil { // a directory: skipped
		t.Fatal(err)
	}
	tests := []struct {
		name, program string
		env           []string
		want          string
	}{
		{"found", "tool", []string{"PATH=" + bin}, filepath.Join(bin, "tool")},
		{"the first executable file", "tool", []string{"PATH=" + plain + ":" + other + ":" + bin}, filepath.Join(bin, "tool")},
		{"the last PATH counts", "tool", []string{"PATH=" + bin, "PATH=" + plain}, "tool"},
		{"relative directories skipped", "tool", []string{"PATH=bin"}, "tool"},
		{"not executable", "data", []string{"PATH=" + plain}, "data"},
		{"no PATH", "tool", nil, "tool"},
		{"a path is kept", "./tool", []string{"PATH=" + bin}, "./tool"},
		{"an absolute path is kept", "/x/tool", []string{"PATH=" + bin}, "/x/tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exe.LookPath(tt.program, tt.env); got != tt.want {
				t.Errorf("LookPath(%q) = %q, want %q", tt.program, got, tt.want)
			}
		})
	}
}

func TestScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "run.py")
	if err := os.WriteFile(script, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, program string
		args          []string
		want          string
	}{
		{"relative to dir", "/usr/bin/python3", []string{"-u", "run.py"}, script},
		{"absolute", "python3", []string{script}, script},
		{"not an interpreter", "/usr/bin/cat", []string{"run.py"}, ""},
		{"no file", "node", []string{"-e", "1"}, ""},
		{"a directory is no script", "bash", []string{"."}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exe.Script(tt.program, tt.args, dir); got != tt.want {
				t.Errorf("Script = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSum(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := exe.Sum(f)
	want := "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if diff := cmp.Diff(want, got); diff != "" || err != nil {
		t.Errorf("Sum of a file (-want +got):\n%s%v", diff, err)
	}
	if _, err := exe.Sum(dir); err == nil {
		t.Error("Sum of a directory: no error")
	}
	if _, err := exe.Sum(filepath.Join(dir, "missing")); err == nil {
		t.Error("Sum of a missing file: no error")
	}
}

// TestSumRefusesSpecialFiles: Sum hashes a regular file only. A named
// pipe (a program or a script a launch names, which a pin hashes) is
// refused without waiting for a writer, and a device (/dev/zero, which
// never ends) before a byte is read.
func TestSumRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o755); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, zero} {
		if sum, err := exe.Sum(path); err == nil {
			t.Errorf("Sum(%s) = %s, want an error", path, sum)
		}
	}
}
