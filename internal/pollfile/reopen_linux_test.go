package pollfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReopen: a blocking pipe is opened anew in non-blocking mode, and
// reads what is written to the pipe up to its end, the pipe given staying
// as it was; anything else is left alone.
func TestReopen(t *testing.T) {
	t.Run("a pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		given := os.NewFile(dupBlocking(t, r), "stdin")
		defer given.Close()
		if Polled(given) {
			t.Fatal("Polled(a blocking pipe) = true")
		}
		p := Reopen(given)
		if p == nil {
			t.Fatal("Reopen(a blocking pipe) = nil, want a file")
		}
		defer p.Close()
		if Polled(given) {
			t.Error("the pipe given is non-blocking now")
		}
		if !Polled(p) {
			t.Error("Polled(the file Reopen gives) = false")
		}
		go func() {
			_, _ = io.WriteString(w, "line\n")
			w.Close()
		}()
		got, err := io.ReadAll(p)
		if err != nil || string(got) != "line\n" {
			t.Errorf("read %q, %v; want %q to the end", got, err, "line\n")
		}
	})
	t.Run("a pipe already non-blocking", func(t *testing.T) {
		r, w, err := os.Pipe() // os.Pipe's are
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		if !Polled(r) {
			t.Error("Polled(a non-blocking pipe) = false")
		}
		if p := Reopen(r); p != nil {
			p.Close()
			t.Error("Reopen(a non-blocking pipe) is a file, want nil: it is read in the poller already")
		}
	})
	t.Run("a regular file", func(t *testing.T) {
		f, err := os.Create(filepath.Join(t.TempDir(), "in"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if p := Reopen(f); p != nil {
			p.Close()
			t.Error("Reopen(a regular file) is a file, want nil")
		}
	})
}

// dupBlocking returns a duplicate of f's descriptor, blocking (Fd makes
// f's file description blocking, which the duplicate shares), as a process
// inherits a pipe from its parent.
func dupBlocking(t *testing.T, f *os.File) uintptr {
	t.Helper()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return uintptr(fd)
}
