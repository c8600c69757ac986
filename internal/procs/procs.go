// Package procs is the one place strata runs external programs: tool
// binaries asked to describe themselves, tools run for real, and MCP server
// processes.
//
// Such programs may hang, crash, print garbage or flood their output, and
// none of that may take strata down or leave processes behind. [Run]
// therefore starts every program in a process group of its own, bounds what
// it keeps of the program's output, and kills the whole group with SIGKILL
// when the run times out, is canceled, overflows its output cap, or when the
// program exits while children it started are still running. It always
// waits for the program, so no zombie of ours is left either.
//
// A process that moves itself out of the group (setsid, setpgid, a shell
// with job control) is out of reach: Run does not wait for it longer than a
// short delay even when it keeps the program's output open, but it cannot
// kill it.
//
// On Windows the group is a Job Object: the program starts suspended, is
// put in a job of its own before it runs, and every process it starts is
// in the job too unless it breaks away; killing the group terminates the
// job. Where this documentation says SIGKILL, read TerminateJobObject; the
// SIGTERM of [End] is a CTRL_BREAK_EVENT sent to the program's console
// process group.
package procs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/strata-config/strata/internal/exe"
)

// Defaults of [Invocation].
const (
	// DefaultMaxStdout is the stdout cap of an [Invocation] whose MaxStdout is
	// not positive.
	DefaultMaxStdout = 4 << 20
	// DefaultMaxStderr is the stderr cap of an [Invocation] whose MaxStderr is
	// not positive.
	DefaultMaxStderr = 64 << 10
	// WaitDelay is how long a command waits, once its program has exited
	// or been killed, for the program's output pipes to close before it
	// closes them itself; see [exec.Cmd.WaitDelay]. It matters only when a
	// process that left the program's process group holds them open.
	WaitDelay = time.Second
)

// Invocation describes one run of a program.
type Invocation struct {
	// Program is the program to run. When it has no slash (nor, on
	// Windows, a backslash or a drive) it is looked up in the PATH of Env
	// (never in strata's own environment), in the absolute directories of
	// that PATH only, trying on Windows the extensions of the PATHEXT of
	// Env too; otherwise it is a path, and a relative path is relative to
	// Dir.
	Program string
	// Args are the arguments after the program name. The program's argv[0]
	// is Program as written.
	Args []string
	// Dir is the working directory of the program; "" means strata's own.
	Dir string
	// Private makes Dir the base of a private place to start rather than
	// the working directory itself: the program starts in a new, empty
	// directory that [PrivateDir] makes in Dir, and that is removed once
	// the program has ended (when Run returns; for a [Cmd], when Wait
	// returns, or when Start fails). A relative Program with a slash is
	// refused: nothing is there to run.
	Private bool
	// Env is the complete environment of the program: nil or empty means an
	// empty one, never strata's own. [Env] builds the one strata gives every program.
	Env []string
	// Stdin is what the program reads on its standard input; nil means
	// /dev/null.
	Stdin []byte
	// Timeout bounds the run; zero or negative means only the context
	// does.
	Timeout time.Duration
	// MaxStdout is how many bytes of standard output Run keeps; zero or
	// negative means [DefaultMaxStdout]. A program that writes more is
	// killed (with its whole process group) and Run fails with a
	// [KindOverflow] error; the first MaxStdout bytes are kept.
	MaxStdout int64
	// MaxStderr is how many bytes of standard error Run keeps; zero or
	// negative means [DefaultMaxStderr]. Beyond it standard error is read
	// and dropped, which is never an error: the first MaxStderr bytes are
	// kept and [Result].StderrTruncated is set.
	MaxStderr int64
}

// Result is what a run of a program produced. After a failed run it holds
// what was captured before the failure.
type Result struct {
	// Stdout is the program's standard output, at most [Invocation].MaxStdout
	// bytes, unchanged.
	Stdout []byte
	// Stderr is the program's standard error, at most [Invocation].MaxStderr
	// bytes, unchanged.
	Stderr []byte
	// StderrTruncated reports that the program wrote more than Stderr
	// holds.
	StderrTruncated bool
	// ExitCode is the program's exit status, or -1 when a signal killed it.
	ExitCode int
	// Signal names the signal that killed the program, such as "killed" or
	// "segmentation fault"; it is "" when the program exited.
	Signal string
	// Duration is the time from starting the program to having collected
	// all of its output.
	Duration time.Duration
}

// Kind classifies an [Error].
type Kind int

// The kinds of [Error].
const (
	// KindStart: the program could not be started: it is missing, not
	// executable, not found in PATH, its working directory is missing, or
	// its private place to start could not be made (see [Invocation].Private).
	KindStart Kind = iota + 1
	// KindTimeout: the run took longer than [Invocation].Timeout and was killed.
	KindTimeout
	// KindCanceled: the context was done before the run finished; a
	// running program was killed.
	KindCanceled
	// KindOverflow: the program wrote more than [Invocation].MaxStdout bytes to
	// standard output and was killed.
	KindOverflow
	// KindExit: the program exited with a non-zero status.
	KindExit
	// KindSignal: the program was killed by a signal strata did not send.
	KindSignal
)

// String returns the kind's name in lower case, such as "timeout".
func (k Kind) String() string {
	switch k {
	case KindStart:
		return "start"
	case KindTimeout:
		return "timeout"
	case KindCanceled:
		return "canceled"
	case KindOverflow:
		return "overflow"
	case KindExit:
		return "exit"
	case KindSignal:
		return "signal"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Error is the error of [Run] and [Command].
type Error struct {
	// Program is [Invocation].Program as written.
	Program string
	// Kind says what went wrong.
	Kind Kind
	// Detail says what happened in a few words, on one line, such as
	// "timed out after 2s" or "exit status 1: <first line of stderr>".
	Detail string
	// Err is the underlying error, if any: the operating system's error
	// for [KindStart], the context's error for [KindCanceled], the
	// [*exec.ExitError] for [KindExit] and [KindSignal].
	Err error
}

// Error returns "<program>: <detail>", such as
// "tools/hang.sh: timed out after 2s".
func (e *Error) Error() string {
	if e.Program == "" {
		return "procs: " + e.Detail
	}
	return e.Program + ": " + e.Detail
}

// Unwrap returns [Error].Err, so that errors.Is(err, fs.ErrNotExist) or
// errors.Is(err, context.Canceled) work.
func (e *Error) Unwrap() error { return e.Err }

// The causes with which Run cancels its own context.
var (
	errTimeout  = errors.New("procs: timeout")
	errOverflow = errors.New("procs: stdout overflow")
)

// Run runs the program s describes, waits for it and returns what it wrote.
//
// It fails with an [*Error]: [KindStart] when the program cannot be started
// (the Result is then empty), otherwise [KindTimeout], [KindCanceled],
// [KindOverflow], [KindExit] or [KindSignal], with the Result holding what
// was captured. Whatever the outcome, when Run returns the program's
// process group has been sent SIGKILL (once the program has exited, any
// process left in its group is killed too) and the program itself has been
// waited for.
func Run(ctx context.Context, s Invocation) (Result, error) {
	return run(ctx, s, waitExit)
}

// run is Run with the function that waits for the program's exit without
// reaping it; one that fails makes run kill the group after reaping, as on
// systems without waitid.
func run(ctx context.Context, s Invocation, waitExit func(pid int) error) (Result, error) {
	if err := ctx.Err(); err != nil {
		return Result{}, canceled(s.Program, ctx)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if s.Timeout > 0 {
		var cancelTimeout context.CancelFunc
		runCtx, cancelTimeout = context.WithTimeoutCause(runCtx, s.Timeout, errTimeout)
		defer cancelTimeout()
	}

	cmd, err := Command(runCtx, s)
	if err != nil {
		return Result{}, err
	}
	stdout := &capWriter{max: limit(s.MaxStdout, DefaultMaxStdout), overflow: func() { cancel(errOverflow) }}
	stderr := &capWriter{max: limit(s.MaxStderr, DefaultMaxStderr)}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	if s.Stdin == nil {
		// The one /dev/null of every run, passed to the program as it is,
		// rather than one that exec.Cmd opens (and registers with the
		// poller, and closes) for each run.
		if f := devNull(); f != nil {
			cmd.Stdin = f
		}
	}

	// Until the program has exited and its group been killed, Cancel kills
	// the group; after that the group may be gone and its id reused, so
	// Cancel does nothing. The group's id stays reserved while the program
	// is an unreaped zombie, which is why Run waits for the program's exit
	// without reaping it first (waitExit), kills the group, and only then
	// reaps it (cmd.Wait).
	start := time.Now()
	if err := cmd.Start(); err != nil {
		var pe *Error
		switch {
		case runCtx.Err() != nil:
			return Result{}, interrupted(s, runCtx, ctx)
		case errors.As(err, &pe):
			return Result{}, err // no place to start in
		}
		return Result{}, startError(s.Program, err)
	}
	exitErr := waitExit(cmd.Process.Pid)
	// Whether something asked for the program to be killed before it exited.
	killed := runCtx.Err() != nil
	if exitErr == nil {
		_ = cmd.group.kill(true)
	}
	waitErr := cmd.Wait()
	if exitErr != nil {
		// waitExit is not available: kill what is left of the group now.
		killed = runCtx.Err() != nil
		_ = cmd.group.kill(true)
	}
	r := Result{
		Stdout:          stdout.buf.Bytes(),
		Stderr:          stderr.buf.Bytes(),
		StderrTruncated: stderr.dropped,
		Duration:        time.Since(start),
	}
	state := cmd.ProcessState
	if state == nil {
		// Only when the process could not be waited for, which the
		// operating system does not do to a child of ours.
		return r, &Error{Program: s.Program, Kind: KindStart, Detail: "cannot wait: " + waitErr.Error(), Err: waitErr}
	}
	r.ExitCode = state.ExitCode()
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.Signal = ws.Signal().String()
	}

	switch {
	case stdout.dropped:
		return r, &Error{Program: s.Program, Kind: KindOverflow,
			Detail: "wrote more than " + formatSize(stdout.max) + " to stdout"}
	case killed && !state.Success():
		return r, interrupted(s, runCtx, ctx)
	case state.Success():
		// A nil waitErr, or ErrWaitDelay: a process that left the group
		// kept the output open after the program exited; what the program
		// wrote is all there.
		return r, nil
	case r.Signal != "":
		return r, &Error{Program: s.Program, Kind: KindSignal, Detail: "killed by signal " + r.Signal, Err: exitError(waitErr, state)}
	default:
		detail := fmt.Sprintf("exit status %d", r.ExitCode)
		if line := firstLine(r.Stderr); line != "" {
			detail += ": " + line
		}
		return r, &Error{Program: s.Program, Kind: KindExit, Detail: detail, Err: exitError(waitErr, state)}
	}
}

// Cmd is a program to run, made by [Command]: an [exec.Cmd] whose Start
// and Wait also manage the program's group. Start it with Cmd's own Start,
// never with the embedded exec.Cmd's Start, Run, Output or CombinedOutput:
// on Windows the program would stay suspended.
type Cmd struct {
	*exec.Cmd
	group *group
	// private is the base of the program's private place to start (see
	// [Invocation].Private), and release removes the directory made there.
	private string
	release func()
}

// Command returns a [Cmd] that runs the program s describes the way [Run]
// does, for callers that manage its pipes themselves: the program is
// resolved as [Invocation].Program says, it starts in a process group of its own,
// with exactly [Invocation].Env as its environment and [Invocation].Dir as its working
// directory, and when ctx is done before the command has been waited for,
// the whole group is killed with SIGKILL; [exec.Cmd].WaitDelay is
// [WaitDelay]. Stdin reads [Invocation].Stdin when that is not nil (and is left
// unset otherwise, so that StdinPipe can be used); Stdout and Stderr are
// not set. Timeout, MaxStdout and MaxStderr are not used: bound the command
// with ctx.
//
// To be sure nothing of the program's group is left, cancel ctx before
// calling Wait: after Wait has reaped the program, its group can no longer
// be killed safely, since its id may be reused. (On Windows, Wait closes
// the program's job, which terminates what is left in it.)
//
// With [Invocation].Private, the directory the program starts in is made by
// Start, and removed when Wait returns (or when Start fails).
//
// The error is an [*Error] of [KindStart] when the program cannot be found
// or is not executable, or the working directory is missing.
func Command(ctx context.Context, s Invocation) (*Cmd, error) {
	path, err := resolve(s)
	if err != nil {
		return nil, err
	}
	cmd := &Cmd{Cmd: exec.CommandContext(ctx, path), group: &group{}}
	cmd.Args = append([]string{s.Program}, s.Args...)
	cmd.Dir = s.Dir
	if s.Private {
		cmd.Dir, cmd.private = "", s.Dir
	}
	cmd.Env = append([]string{}, s.Env...) // never nil: nil means strata's environment
	if s.Stdin != nil {
		cmd.Stdin = bytes.NewReader(s.Stdin)
	}
	cmd.SysProcAttr = procAttr()
	cmd.Cancel = func() error { return cmd.group.kill(false) }
	cmd.WaitDelay = WaitDelay
	return cmd, nil
}

// Start starts the program in a group of its own; see [exec.Cmd.Start].
// With [Invocation].Private it first makes the directory the program starts in;
// when that fails, the error is an [*Error] of [KindStart] that says why
// and what fixes it.
func (c *Cmd) Start() error {
	if c.private != "" {
		dir, release, err := PrivateDir(c.private)
		if err != nil {
			return &Error{Program: c.Args[0], Kind: KindStart, Detail: err.Error(), Err: err}
		}
		c.Cmd.Dir, c.release = dir, release
	}
	if err := c.Cmd.Start(); err != nil {
		c.removePrivate()
		return err
	}
	if err := c.group.start(c.Process); err != nil {
		_ = c.Process.Kill()
		_ = c.Wait()
		return err
	}
	return nil
}

// Wait waits for the program as [exec.Cmd.Wait] does, then lets go of its
// group, and removes its private place to start, if it has one.
func (c *Cmd) Wait() error {
	err := c.Cmd.Wait()
	c.group.release()
	c.removePrivate()
	return err
}

// removePrivate removes the directory made for the program to start in.
func (c *Cmd) removePrivate() {
	if c.release != nil {
		c.release()
		c.release = nil
	}
}

// group is the group of processes a program runs in, and guards its
// killing: a process group on Unix, a Job Object on Windows (osGroup).
type group struct {
	mu    sync.Mutex
	final bool // killed after the program exited: the group's id may be reused
	os    osGroup
}

// start puts the started process p, not yet waited for, in the group.
func (g *group) start(p *os.Process) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.os.start(p)
}

// kill kills the processes of the group, unless a call with final set came
// before, in which case it returns os.ErrProcessDone; so does a group that
// is gone or was never started.
func (g *group) kill(final bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.final {
		return os.ErrProcessDone
	}
	g.final = final
	return g.os.kill()
}

// terminate asks the processes of the group to end: SIGTERM on Unix, a
// CTRL_BREAK_EVENT on Windows.
func (g *group) terminate() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.final {
		return os.ErrProcessDone
	}
	return g.os.terminate()
}

// release lets go of the group once its program has been waited for.
func (g *group) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.os.release()
}

// resolve returns the path to start for s.Program, checking what can be
// checked before starting it, so that the common mistakes get a clear
// message.
func resolve(s Invocation) (string, error) {
	fail := func(detail string, err error) (string, error) {
		return "", &Error{Program: s.Program, Kind: KindStart, Detail: detail, Err: err}
	}
	if s.Program == "" {
		return fail("no program given", nil)
	}
	if s.Private && exe.HasDir(s.Program) && !filepath.IsAbs(s.Program) {
		return fail("a relative path, and the program starts in a new, empty directory", nil)
	}
	if s.Dir != "" && !s.Private { // a private base is made and checked by Start
		fi, err := os.Stat(s.Dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fail("working directory "+s.Dir+" not found", err)
		case err != nil:
			return fail("working directory: "+errText(err), err)
		case !fi.IsDir():
			return fail("working directory "+s.Dir+" is not a directory", nil)
		}
	}
	if !exe.HasDir(s.Program) {
		p, err := exe.Find(s.Program, s.Env)
		if err != nil {
			return fail("not found in PATH", fs.ErrNotExist)
		}
		return p, nil
	}
	at := s.Program
	if !filepath.IsAbs(at) && s.Dir != "" {
		at = filepath.Join(s.Dir, at)
	}
	fi, err := os.Stat(at)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("not found", err)
	case errors.Is(err, fs.ErrPermission):
		return fail("not executable (permission denied)", err)
	case err != nil:
		return fail("cannot start: "+errText(err), err)
	case fi.IsDir():
		return fail("is a directory", nil)
	case !exe.Executable(at, fi, s.Env):
		return fail(exe.NotExecutable, fs.ErrPermission)
	}
	// exec.Cmd runs a relative path relative to Dir, as checked above.
	return s.Program, nil
}

// startError turns an error of exec.Cmd.Start into an *Error.
func startError(program string, err error) error {
	e := &Error{Program: program, Kind: KindStart, Err: err}
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno) && errno == syscall.EACCES:
		e.Detail = "not executable (permission denied)"
	case errors.As(err, &errno) && errno == syscall.ENOEXEC:
		e.Detail = "not executable (exec format error)"
	case errors.As(err, &errno) && errno == syscall.ENOENT:
		// The file was there a moment ago (resolve checked), so what is
		// missing is most likely the interpreter its #! line names.
		e.Detail = "cannot start: no such file or directory (missing interpreter?)"
	default:
		e.Detail = "cannot start: " + errText(err)
	}
	return e
}

// interrupted returns the error of a run whose runCtx, made by Run from
// ctx, is done for a reason other than an overflow: the timeout or ctx.
func interrupted(s Invocation, runCtx, ctx context.Context) error {
	if context.Cause(runCtx) == errTimeout {
		return &Error{Program: s.Program, Kind: KindTimeout, Detail: "timed out after " + s.Timeout.String()}
	}
	return canceled(s.Program, ctx)
}

// canceled returns the error of a run whose context ctx is done.
func canceled(program string, ctx context.Context) error {
	return &Error{Program: program, Kind: KindCanceled, Detail: "canceled: " + ctx.Err().Error(), Err: ctx.Err()}
}

// exitError returns the *exec.ExitError of a failed run.
func exitError(waitErr error, state *os.ProcessState) error {
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		return ee
	}
	return &exec.ExitError{ProcessState: state}
}

// errText returns err's text on one line.
func errText(err error) string { return oneLine(err.Error()) }

// capWriter keeps the first max bytes written to it, reads and drops the
// rest, and calls overflow (when set) once, on the first byte beyond max.
// It never fails, so that the program's output is always drained and the
// program never blocks on a full pipe while being killed.
type capWriter struct {
	buf      bytes.Buffer
	max      int64
	dropped  bool
	overflow func()
}

// Write implements [io.Writer].
func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - int64(w.buf.Len())
	if int64(len(p)) <= room {
		w.buf.Write(p)
		return len(p), nil
	}
	w.buf.Write(p[:room])
	if !w.dropped {
		w.dropped = true
		if w.overflow != nil {
			w.overflow()
		}
	}
	return len(p), nil
}

// ReadFrom implements [io.ReaderFrom]: exec.Cmd copies a program's output
// to its writer with io.Copy, which then reads into w's buffer directly
// instead of allocating a 32 KiB buffer for each stream of each run.
// Beyond the cap, it reads into a pooled buffer and drops what it read.
func (w *capWriter) ReadFrom(r io.Reader) (int64, error) {
	var total int64
	for {
		var n int
		var err error
		if room := w.max - int64(w.buf.Len()); room > 0 {
			w.buf.Grow(int(min(room, minRead)))
			b := w.buf.AvailableBuffer()
			n, err = r.Read(b[:min(int64(cap(b)), room)])
			w.buf.Write(b[:n])
		} else {
			scratch := scratchPool.Get().(*[]byte)
			n, err = r.Read(*scratch)
			scratchPool.Put(scratch)
			if n > 0 && !w.dropped {
				w.dropped = true
				if w.overflow != nil {
					w.overflow()
				}
			}
		}
		total += int64(n)
		switch {
		case err == io.EOF:
			return total, nil
		case err != nil:
			return total, err
		}
	}
}

// minRead is the room capWriter.ReadFrom makes for a read, at least.
const minRead = 512

// scratchPool holds the buffers that output beyond a cap is read into.
var scratchPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// devNull returns /dev/null, opened once for reading, as the standard input
// of every program that is given none; nil when it cannot be opened.
var devNull = sync.OnceValue(func() *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	return f
})

// limit returns n, or def when n is not positive.
func limit(n, def int64) int64 {
	if n <= 0 {
		return def
	}
	return n
}

// formatSize writes n bytes as "4 MiB", "64 KiB" or "1000 bytes".
func formatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n == 1:
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// maxLine is how many runes of a line of stderr an error message quotes.
const maxLine = 200

// firstLine returns the first line of b that is not blank, made fit for a
// one-line message: trimmed, invalid UTF-8 and control characters replaced,
// and cut at maxLine runes.
func firstLine(b []byte) string {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if s := oneLine(string(line)); s != "" {
			return s
		}
	}
	return ""
}

// oneLine trims s, replaces its invalid UTF-8 and control characters, and
// cuts it at maxLine runes.
func oneLine(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	s = strings.Map(func(r rune) rune {
		if r == '\t' {
			return ' '
		}
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > maxLine {
		s = string([]rune(s)[:maxLine]) + "…"
	}
	return s
}
