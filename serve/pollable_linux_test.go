package serve

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPollable: a blocking pipe is opened anew in non-blocking mode, and
// reads what is written to the pipe up to its end, the pipe given staying
// as it was; anything else is read as it is.
func TestPollable(t *testing.T) {
	t.Run("a pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		// os.Pipe's are non-blocking; a client's pipe, as a process
		// inherits it, is blocking.
		given := os.NewFile(dupBlocking(t, r), "stdin")
		defer given.Close()
		p := pollable(given)
		if p == nil {
			t.Fatal("pollable(a blocking pipe) = nil, want a file")
		}
		defer p.Close()
		if nonblocking(t, given) {
			t.Error("the pipe given is non-blocking now")
		}
		if !nonblocking(t, p) {
			t.Error("the file of its own is blocking")
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
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		defer w.Close()
		if p := pollable(r); p != nil {
			p.Close()
			t.Error("pollable(a non-blocking pipe) is a file, want nil: it is read in the poller already")
		}
	})
	t.Run("a regular file", func(t *testing.T) {
		f, err := os.Create(filepath.Join(t.TempDir(), "in"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if p := pollable(f); p != nil {
			p.Close()
			t.Error("pollable(a regular file) is a file, want nil")
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

func nonblocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	if err := rc.Control(func(fd uintptr) { flags, err = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil {
		t.Fatal(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}
