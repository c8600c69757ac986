// Package readfile is the one reader of the files strata reads into
// memory: layer files, environment files, the trust list, npx's
// package.json. [Regular] reads only a regular file, within a size bound
// kept while reading, and only while its context lasts.
package readfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/strata-config/strata/diag"
)

// ErrTooLarge is the cause of the problem of a file over its limit.
var ErrTooLarge = errors.New("too large")

// readChunk is how much a read takes at a time between looks at the
// context.
const readChunk = 64 << 10

// Regular reads the regular file at path (a symbolic link to one is
// followed), of at most max bytes, while ctx lasts. A directory, a device,
// a named pipe or a socket is refused before a byte is read, and a named
// pipe that takes the file's place meanwhile is opened without waiting for
// a writer; what names what the file should be, in messages ("a layer
// file"). The problems are [*diag.Error] values naming path; a file over
// max has [ErrTooLarge] as its cause, a cancelled ctx its error.
func Regular(ctx context.Context, path string, max int64, what string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: "not read: " + err.Error(), Err: err}
	}
	f, info, err := Open(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The size is a hint (files in /proc say 0): the limit is kept while
	// reading.
	buf := make([]byte, 0, min(max, info.Size())+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: "not read: " + err.Error(), Err: err}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):min(cap(buf), len(buf)+readChunk)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, &diag.Error{Code: diag.CodeLimit, Source: path, Msg: "is larger than " + Bytes(max) + ", the limit for " + what, Err: ErrTooLarge}
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: "cannot read: " + unwrapPath(err).Error(), Err: err}
		}
	}
}

// Open opens the regular file at path (a symbolic link to one is
// followed) for reading, as [Regular] does before it reads, for a caller
// that reads it as a stream (to hash it) within a bound of its own, and
// closes it. A directory, a device, a named pipe or a socket is refused
// before it is opened (opening a device may do something of its own), and
// a named pipe that takes the file's place meanwhile is opened without
// waiting for a writer, then refused. what names what the file should be,
// in messages. The problems are [*diag.Error] values naming path.
func Open(path, what string) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: "cannot read: " + unwrapPath(err).Error(), Err: err}
	}
	if err := regular(path, info, what); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: "cannot read: " + unwrapPath(err).Error(), Err: err}
	}
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, &diag.Error{Code: diag.CodeRead, Source: path, Msg: "cannot read: " + unwrapPath(err).Error(), Err: err}
	}
	if err := regular(path, info, what); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// regular returns a problem when info, of the file at path, is not a
// regular file; what names what it should be.
func regular(path string, info fs.FileInfo, what string) error {
	var is string
	switch m := info.Mode(); {
	case m.IsRegular():
		return nil
	case m.IsDir():
		is = "a directory"
	case m&fs.ModeNamedPipe != 0:
		is = "a named pipe"
	case m&fs.ModeSocket != 0:
		is = "a socket"
	case m&fs.ModeDevice != 0:
		is = "a device"
	default:
		is = "not a regular file"
	}
	if target, err := os.Readlink(path); err == nil {
		is += " (through a symbolic link to " + target + ")"
	}
	hint := what + " must be a regular file"
	if what == "a layer file" {
		hint = "a layer is a regular file"
	}
	return &diag.Error{Code: diag.CodeRead, Source: path, Msg: "is " + is + ", not " + what, Hint: hint}
}

// Bytes writes a size in bytes for people: 1 MiB, 1,500 bytes.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return diag.Count(int(n)) + " bytes"
}

// unwrapPath drops the path from an *fs.PathError, which the message
// names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
