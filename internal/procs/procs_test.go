//go:build unix

package procs

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/strata-config/strata/internal/proctest"
)

// The programs of these tests are small shell scripts written into a
// temporary directory at test time, so that each case shows the script it
// runs and so that modes and PATH directories can vary per case.

// bound is how long returns waits: a safety net for runs that must not
// wait for the sleeps of their scripts (100 s and more), which fails them
// rather than hangs on; never a measure of how fast they were.
const bound = 30 * time.Second

// returns runs f and fails the test when f has not returned within bound.
func returns(t *testing.T, what string, f func()) {
	t.Helper()
	proctest.Returns(t, what, bound, f)
}

// whenExists calls f once the file path exists, polling for it, unless ctx
// is done first.
func whenExists(ctx context.Context, path string, f func()) {
	go func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			if _, err := os.Stat(path); err == nil {
				f()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// file is a file a test writes under its temporary directory.
type file struct {
	path    string // slash-separated, relative to the directory
	content string
	mode    fs.FileMode // 0 means 0o755
}

// script returns the executable shell script tools/run.sh with body.
func script(body string) file {
	return file{path: "tools/run.sh", content: "#!/bin/sh\n" + body + "\n"}
}

// writeFiles writes files under dir.
// runUnbusy is Run, run again while its program is busy: a test that
// forks while another writes its script leaves the script open for
// writing in the child until the child execs (golang/go#22315), and
// running the script then fails with "text file busy". Each try forks
// anew, which takes that long; the window is short.
func runUnbusy(ctx context.Context, s Invocation) (Result, error) {
	for i := 0; ; i++ {
		res, err := Run(ctx, s)
		if i == 100 || !errors.Is(err, syscall.ETXTBSY) {
			return res, err
		}
	}
}

func writeFiles(t *testing.T, dir string, files ...file) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := f.mode
		if mode == 0 {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(f.content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // not subject to the umask
			t.Fatal(err)
		}
	}
}

// baseSpec is the spec of the script tools/run.sh in dir.
func baseSpec(dir string) Invocation {
	return Invocation{Program: "tools/run.sh", Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}}
}

// errOf describes err for comparison: its kind and message.
type errOf struct {
	Kind Kind
	Msg  string
}

// describe returns the errOf of err, failing the test when err is not nil
// and not an *Error.
func describe(t *testing.T, err error) errOf {
	t.Helper()
	if err == nil {
		return errOf{}
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	return errOf{Kind: e.Kind, Msg: err.Error()}
}

// cmpResult compares results without their durations, with nil and empty
// output equal.
var cmpResult = []cmp.Option{cmpopts.IgnoreFields(Result{}, "Duration"), cmpopts.EquateEmpty()}

func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   []file
		spec    func(s *Invocation, dir string) // changes to baseSpec; nil for none
		want    Result
		wantErr errOf // with "$DIR" for the temporary directory
	}{
		{
			name:  "stdout and stderr are captured",
			files: []file{script(`echo out; echo err >&2`)},
			want:  Result{Stdout: []byte("out\n"), Stderr: []byte("err\n")},
		},
		{
			name:  "arguments and stdin reach the program",
			files: []file{script(`printf '[%s]' "$0" "$@"; cat`)},
			spec: func(s *Invocation, _ string) {
				s.Args = []string{"a b", "", "c"}
				s.Stdin = []byte("in\x00put")
			},
			want: Result{Stdout: []byte("[tools/run.sh][a b][][c]in\x00put")},
		},
		{
			name:  "nil stdin is /dev/null",
			files: []file{script(`readlink /proc/$$/fd/0`)},
			want:  Result{Stdout: []byte("/dev/null\n")},
		},
		{
			name:  "empty stdin is empty",
			files: []file{script(`wc -c`)},
			spec:  func(s *Invocation, _ string) { s.Stdin = []byte{} },
			want:  Result{Stdout: []byte("0\n")},
		},
		{
			name: "the environment is exactly Env",
			spec: func(s *Invocation, _ string) {
				s.Program = "/usr/bin/env"
				s.Env = []string{"B=2", "A=1", "PATH=/nowhere"}
			},
			want: Result{Stdout: []byte("B=2\nA=1\nPATH=/nowhere\n")},
		},
		{
			name: "nil Env is an empty environment",
			spec: func(s *Invocation, _ string) {
				s.Program = "/usr/bin/env"
				s.Env = nil
			},
			want: Result{},
		},
		{
			name: "the working directory is Dir",
			files: []file{
				script(`[ "$(pwd)" = "$D" ] && ls`),
				{path: "data.txt", content: "x", mode: 0o644},
			},
			spec: func(s *Invocation, dir string) { s.Env = append(s.Env, "D="+dir) },
			want: Result{Stdout: []byte("data.txt\ntools\n")},
		},
		{
			name: "found in the PATH of Env",
			files: []file{
				{path: "bin/strata-procs-probe", content: "#!/bin/sh\necho probe \"$0\"\n"},
			},
			spec: func(s *Invocation, dir string) {
				s.Program = "strata-procs-probe"
				s.Env = []string{"PATH=/nonexistent:" + filepath.Join(dir, "bin")}
			},
			want: Result{Stdout: []byte("probe $DIR/bin/strata-procs-probe\n")},
		},
		{
			name: "the first executable file in PATH wins",
			files: []file{
				{path: "a/tool/file", content: "a directory named tool"},
				{path: "b/tool", content: "#!/bin/sh\necho b\n", mode: 0o644},
				{path: "c/tool", content: "#!/bin/sh\necho c\n"},
				{path: "d/tool", content: "#!/bin/sh\necho d\n"},
			},
			spec: func(s *Invocation, dir string) {
				s.Program = "tool"
				s.Env = []string{"PATH=" + strings.Join([]string{
					filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c"), filepath.Join(dir, "d"),
				}, ":")}
			},
			want: Result{Stdout: []byte("c\n")},
		},
		{
			name:  "garbage bytes pass through unchanged",
			files: []file{script(`printf '\000\377\376\033[2J\r\n\001'; printf '\377\000\033' >&2`)},
			want:  Result{Stdout: []byte("\x00\xff\xfe\x1b[2J\r\n\x01"), Stderr: []byte("\xff\x00\x1b")},
		},
		{
			name:  "every byte value passes from stdin to stdout",
			files: []file{script(`cat`)},
			spec:  func(s *Invocation, _ string) { s.Stdin = allBytes() },
			want:  Result{Stdout: allBytes()},
		},
		{
			name:  "stdout of exactly MaxStdout bytes is fine",
			files: []file{script(`printf 0123456789`)},
			spec:  func(s *Invocation, _ string) { s.MaxStdout = 10 },
			want:  Result{Stdout: []byte("0123456789")},
		},
		{
			name:  "one byte more than MaxStdout overflows and kills",
			files: []file{script(`printf 0123456789a; sleep 100`)},
			spec:  func(s *Invocation, _ string) { s.MaxStdout = 10 },
			want:  Result{Stdout: []byte("0123456789"), ExitCode: -1, Signal: "killed"},
			wantErr: errOf{Kind: KindOverflow,
				Msg: "tools/run.sh: wrote more than 10 bytes to stdout"},
		},
		{
			name:  "stderr beyond MaxStderr is dropped",
			files: []file{script(`printf 0123456789abc >&2; echo ok`)},
			spec:  func(s *Invocation, _ string) { s.MaxStderr = 10 },
			want:  Result{Stdout: []byte("ok\n"), Stderr: []byte("0123456789"), StderrTruncated: true},
		},
		{
			name:  "stderr of exactly MaxStderr bytes is not truncated",
			files: []file{script(`printf 0123456789 >&2`)},
			spec:  func(s *Invocation, _ string) { s.MaxStderr = 10 },
			want:  Result{Stderr: []byte("0123456789")},
		},
		{
			name:  "a stderr flood is truncated, not fatal",
			files: []file{script(`head -c 10000000 /dev/zero >&2; echo done`)},
			want: Result{Stdout: []byte("done\n"), Stderr: make([]byte, DefaultMaxStderr),
				StderrTruncated: true},
		},
		{
			name:  "non-zero exit names the first line of stderr",
			files: []file{script(`echo partial; echo 'boom: bad thing' >&2; echo second >&2; exit 3`)},
			want: Result{Stdout: []byte("partial\n"), Stderr: []byte("boom: bad thing\nsecond\n"),
				ExitCode: 3},
			wantErr: errOf{Kind: KindExit, Msg: "tools/run.sh: exit status 3: boom: bad thing"},
		},
		{
			name:    "non-zero exit without stderr",
			files:   []file{script(`exit 1`)},
			want:    Result{ExitCode: 1},
			wantErr: errOf{Kind: KindExit, Msg: "tools/run.sh: exit status 1"},
		},
		{
			name:  "blank lines and control characters of stderr stay out of the message",
			files: []file{script(`printf '\n \t \n\033[31mred\talert\r\nnext\n' >&2; exit 2`)},
			want: Result{Stderr: []byte("\n \t \n\x1b[31mred\talert\r\nnext\n"),
				ExitCode: 2},
			wantErr: errOf{Kind: KindExit, Msg: "tools/run.sh: exit status 2: ?[31mred alert"},
		},
		{
			name:  "a long line of stderr is cut in the message",
			files: []file{script(`head -c 300 /dev/zero | tr '\000' x >&2; exit 1`)},
			want:  Result{Stderr: bytes.Repeat([]byte("x"), 300), ExitCode: 1},
			wantErr: errOf{Kind: KindExit,
				Msg: "tools/run.sh: exit status 1: " + strings.Repeat("x", 200) + "…"},
		},
		{
			name:    "a crash reports the signal",
			files:   []file{script(`ulimit -c 0; echo before; kill -SEGV $$`)},
			want:    Result{Stdout: []byte("before\n"), ExitCode: -1, Signal: "segmentation fault"},
			wantErr: errOf{Kind: KindSignal, Msg: "tools/run.sh: killed by signal segmentation fault"},
		},
		{
			name:    "SIGKILL not sent by Run is a signal",
			files:   []file{script(`kill -KILL $$`)},
			want:    Result{ExitCode: -1, Signal: "killed"},
			wantErr: errOf{Kind: KindSignal, Msg: "tools/run.sh: killed by signal killed"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tc.files...)
			s := baseSpec(dir)
			if tc.spec != nil {
				tc.spec(&s, dir)
			}
			got, err := runUnbusy(t.Context(), s)
			if got.Duration <= 0 {
				t.Errorf("Duration = %v, want more than 0", got.Duration)
			}
			want := tc.want
			want.Stdout = bytes.ReplaceAll(want.Stdout, []byte("$DIR"), []byte(dir))
			if diff := cmp.Diff(want, got, cmpResult...); diff != "" {
				t.Errorf("Run result (-want +got):\n%s", diff)
			}
			wantErr := tc.wantErr
			wantErr.Msg = strings.ReplaceAll(wantErr.Msg, "$DIR", dir)
			if diff := cmp.Diff(wantErr, describe(t, err)); diff != "" {
				t.Errorf("Run error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunStartErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   []file
		spec    func(s *Invocation, dir string)
		wantErr errOf // with "$DIR" for the temporary directory
		wantIs  error // nil: not checked
	}{
		{
			name:    "missing program",
			spec:    func(s *Invocation, _ string) { s.Program = "tools/missing" },
			wantErr: errOf{Kind: KindStart, Msg: "tools/missing: not found"},
			wantIs:  fs.ErrNotExist,
		},
		{
			name:    "file not executable",
			files:   []file{{path: "tools/x.txt", content: "#!/bin/sh\necho hi\n", mode: 0o644}},
			spec:    func(s *Invocation, _ string) { s.Program = "tools/x.txt" },
			wantErr: errOf{Kind: KindStart, Msg: "tools/x.txt: not executable (permission denied)"},
			wantIs:  fs.ErrPermission,
		},
		{
			name:    "directory",
			files:   []file{script(`echo hi`)},
			spec:    func(s *Invocation, _ string) { s.Program = "./tools" },
			wantErr: errOf{Kind: KindStart, Msg: "./tools: is a directory"},
		},
		{
			name:    "missing interpreter",
			files:   []file{{path: "tools/run.sh", content: "#!/nonexistent/interpreter\n"}},
			wantErr: errOf{Kind: KindStart, Msg: "tools/run.sh: cannot start: no such file or directory (missing interpreter?)"},
			wantIs:  syscall.ENOENT,
		},
		{
			name:    "executable garbage",
			files:   []file{{path: "tools/run.sh", content: "\x00\x01\x02garbage"}},
			wantErr: errOf{Kind: KindStart, Msg: "tools/run.sh: not executable (exec format error)"},
			wantIs:  syscall.ENOEXEC,
		},
		{
			name:  "not in PATH",
			files: []file{{path: "bin/other", content: "#!/bin/sh\n"}},
			spec: func(s *Invocation, dir string) {
				s.Program, s.Env = "strata-no-such-tool", []string{"PATH=" + filepath.Join(dir, "bin")}
			},
			wantErr: errOf{Kind: KindStart, Msg: "strata-no-such-tool: not found in PATH"},
			wantIs:  fs.ErrNotExist,
		},
		{
			name:  "the PATH of the test process is not searched",
			files: []file{{path: "bin/other", content: "#!/bin/sh\n"}},
			spec: func(s *Invocation, dir string) {
				s.Program, s.Env = "sh", []string{"PATH=" + filepath.Join(dir, "bin")}
			},
			wantErr: errOf{Kind: KindStart, Msg: "sh: not found in PATH"},
			wantIs:  fs.ErrNotExist,
		},
		{
			name:    "no PATH in Env",
			spec:    func(s *Invocation, _ string) { s.Program, s.Env = "sh", []string{"HOME=/"} },
			wantErr: errOf{Kind: KindStart, Msg: "sh: not found in PATH"},
		},
		{
			name:  "the last PATH in Env counts",
			files: []file{{path: "bin/strata-procs-probe", content: "#!/bin/sh\n"}},
			spec: func(s *Invocation, dir string) {
				s.Program = "strata-procs-probe"
				s.Env = []string{"PATH=" + filepath.Join(dir, "bin"), "PATH=/nonexistent"}
			},
			wantErr: errOf{Kind: KindStart, Msg: "strata-procs-probe: not found in PATH"},
		},
		{
			name:    "relative directories of PATH are not searched",
			files:   []file{script(`echo hi`)},
			spec:    func(s *Invocation, _ string) { s.Program, s.Env = "run.sh", []string{"PATH=tools:./tools:"} },
			wantErr: errOf{Kind: KindStart, Msg: "run.sh: not found in PATH"},
		},
		{
			name:  "only executable files in PATH count",
			files: []file{{path: "bin/tool", content: "#!/bin/sh\n", mode: 0o644}},
			spec: func(s *Invocation, dir string) {
				s.Program, s.Env = "tool", []string{"PATH=" + filepath.Join(dir, "bin")}
			},
			wantErr: errOf{Kind: KindStart, Msg: "tool: not found in PATH"},
		},
		{
			name:    "missing working directory",
			spec:    func(s *Invocation, dir string) { s.Program, s.Dir = "/bin/true", filepath.Join(dir, "nope") },
			wantErr: errOf{Kind: KindStart, Msg: "/bin/true: working directory $DIR/nope not found"},
			wantIs:  fs.ErrNotExist,
		},
		{
			name:    "working directory is a file",
			files:   []file{{path: "plain", content: "x", mode: 0o644}},
			spec:    func(s *Invocation, dir string) { s.Program, s.Dir = "/bin/true", filepath.Join(dir, "plain") },
			wantErr: errOf{Kind: KindStart, Msg: "/bin/true: working directory $DIR/plain is not a directory"},
		},
		{
			name:    "no program",
			spec:    func(s *Invocation, _ string) { s.Program = "" },
			wantErr: errOf{Kind: KindStart, Msg: "procs: no program given"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, tc.files...)
			s := baseSpec(dir)
			if tc.spec != nil {
				tc.spec(&s, dir)
			}
			got, err := runUnbusy(t.Context(), s)
			if diff := cmp.Diff(Result{}, got); diff != "" {
				t.Errorf("Run result (-want +got):\n%s", diff)
			}
			wantErr := tc.wantErr
			wantErr.Msg = strings.ReplaceAll(wantErr.Msg, "$DIR", dir)
			if diff := cmp.Diff(wantErr, describe(t, err)); diff != "" {
				t.Errorf("Run error (-want +got):\n%s", diff)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false, want true", err, tc.wantIs)
			}
		})
	}
}

// checkGone checks that pgid, the pid of a program Run has returned from,
// and its process group are gone: the program itself at once (Run reaped
// it), the others of its group within a few seconds, since SIGKILL takes
// effect asynchronously.
func checkGone(t *testing.T, pgid int, others ...int) {
	t.Helper()
	if err := syscall.Kill(pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("kill(%d, 0) after Run = %v, want ESRCH: the program was not reaped", pgid, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := slices.Sorted(maps.Keys(proctest.Group(pgid)))
		for _, pid := range others {
			if proctest.Alive(pid) && !slices.Contains(left, pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes %v of group %d still alive 5s after Run returned", left, pgid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// leadingPids returns the numbers on the first lines of out, up to the
// first line that is not one.
func leadingPids(t *testing.T, out []byte) []int {
	t.Helper()
	var pids []int
	for line := range strings.Lines(string(out)) {
		pid, err := strconv.Atoi(strings.TrimSuffix(line, "\n"))
		if err != nil {
			break
		}
		pids = append(pids, pid)
	}
	if len(pids) == 0 {
		t.Fatalf("stdout %.100q starts with no pid", out)
	}
	return pids
}

// waitWay is a way of waiting for a program's exit without reaping it:
// waitExit, or one it falls back to.
type waitWay struct {
	name     string
	waitExit func(pid int) error
}

func TestRunKillsTheGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		script  string // prints its pid, then the pids of its background children, one a line
		spec    func(s *Invocation)
		ctx     func(ctx context.Context, dir string) (context.Context, context.CancelFunc) // nil: none
		want    Result                                                                      // without Stdout
		wantErr errOf
		wantIs  error // nil: not checked
		// notShort skips the case in -short mode: another case tests all
		// it does.
		notShort string
		// fallbackShort runs the case without waitExit in -short mode too;
		// the other cases run without it only in the full run.
		fallbackShort bool
	}{
		{
			name:     "timeout",
			notShort: `"timeout with background children" tests a timeout too`,
			script:   `echo $$; sleep 100`,
			spec:     func(s *Invocation) { s.Timeout = 500 * time.Millisecond },
			want:     Result{ExitCode: -1, Signal: "killed"},
			wantErr:  errOf{Kind: KindTimeout, Msg: "tools/run.sh: timed out after 500ms"},
		},
		{
			name:          "timeout with background children",
			fallbackShort: true,
			script: `echo $$; sleep 1000 & echo $!
				sleep 1000 >/dev/null 2>&1 </dev/null & echo $!
				sleep 100`,
			spec:    func(s *Invocation) { s.Timeout = 500 * time.Millisecond },
			want:    Result{ExitCode: -1, Signal: "killed"},
			wantErr: errOf{Kind: KindTimeout, Msg: "tools/run.sh: timed out after 500ms"},
		},
		{
			name:    "timeout of a program that ignores SIGTERM, SIGINT and SIGHUP",
			script:  `trap '' TERM INT HUP; echo $$; sleep 1000 & echo $!; sleep 100`,
			spec:    func(s *Invocation) { s.Timeout = 500 * time.Millisecond },
			want:    Result{ExitCode: -1, Signal: "killed"},
			wantErr: errOf{Kind: KindTimeout, Msg: "tools/run.sh: timed out after 500ms"},
		},
		{
			name:   "context canceled",
			script: `echo $$; sleep 1000 & echo $!; touch ready; sleep 100`,
			ctx: func(ctx context.Context, dir string) (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(ctx)
				whenExists(ctx, filepath.Join(dir, "ready"), cancel) // once the child runs
				return ctx, cancel
			},
			want:    Result{ExitCode: -1, Signal: "killed"},
			wantErr: errOf{Kind: KindCanceled, Msg: "tools/run.sh: canceled: context canceled"},
			wantIs:  context.Canceled,
		},
		{
			name:   "context deadline before Timeout",
			script: `echo $$; sleep 1000 & echo $!; sleep 100`,
			spec:   func(s *Invocation) { s.Timeout = time.Hour },
			ctx: func(ctx context.Context, _ string) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 500*time.Millisecond)
			},
			want:    Result{ExitCode: -1, Signal: "killed"},
			wantErr: errOf{Kind: KindCanceled, Msg: "tools/run.sh: canceled: context deadline exceeded"},
			wantIs:  context.DeadlineExceeded,
		},
		{
			name:    "overflow",
			script:  `echo $$; sleep 1000 & echo $!; exec yes`,
			spec:    func(s *Invocation) { s.MaxStdout = 1 << 20 },
			want:    Result{ExitCode: -1, Signal: "killed"},
			wantErr: errOf{Kind: KindOverflow, Msg: "tools/run.sh: wrote more than 1 MiB to stdout"},
		},
		{
			name:          "exit with a background child holding stdout",
			fallbackShort: true,
			script:        `echo $$; sleep 1000 & echo $!; exit 0`,
			want:          Result{},
		},
		{
			name:    "failure with a background child",
			script:  `echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; exit 4`,
			want:    Result{ExitCode: 4},
			wantErr: errOf{Kind: KindExit, Msg: "tools/run.sh: exit status 4"},
		},
	}
	// Where waitid is missing, Run kills the group after reaping the
	// program instead of before.
	waits := append([]waitWay{
		{"waitExit", waitExit},
		{"no waitExit", func(int) error { return errors.ErrUnsupported }},
	}, platformWaits...)
	for _, tc := range tests {
		for _, w := range waits {
			t.Run(tc.name+"/"+w.name, func(t *testing.T) {
				switch {
				case testing.Short() && tc.notShort != "":
					t.Skip("-short: " + tc.notShort)
				case testing.Short() && w.name != "waitExit" && !tc.fallbackShort:
					t.Skip("-short: the cases with fallbackShort test the other ways of waiting")
				}
				t.Parallel()
				dir := t.TempDir()
				writeFiles(t, dir, script(tc.script))
				s := baseSpec(dir)
				if tc.spec != nil {
					tc.spec(&s)
				}
				ctx := t.Context()
				if tc.ctx != nil {
					var cancel context.CancelFunc
					ctx, cancel = tc.ctx(ctx, dir)
					defer cancel()
				}
				var got Result
				var err error
				returns(t, "Run", func() { got, err = run(ctx, s, w.waitExit) })
				pids := leadingPids(t, got.Stdout)
				checkGone(t, pids[0], pids[1:]...)
				if diff := cmp.Diff(tc.want, got, append(cmpResult, cmpopts.IgnoreFields(Result{}, "Stdout"))...); diff != "" {
					t.Errorf("Run result (-want +got):\n%s", diff)
				}
				if s.MaxStdout > 0 && int64(len(got.Stdout)) > s.MaxStdout {
					t.Errorf("len(Stdout) = %d, more than MaxStdout %d", len(got.Stdout), s.MaxStdout)
				}
				if diff := cmp.Diff(tc.wantErr, describe(t, err)); diff != "" {
					t.Errorf("Run error (-want +got):\n%s", diff)
				}
				if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
					t.Errorf("errors.Is(%v, %v) = false, want true", err, tc.wantIs)
				}
			})
		}
	}
}

// TestRunFlood is not parallel: it measures the memory allocated during
// the run.
func TestRunFlood(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   []byte // the first DefaultMaxStdout bytes of the flood
	}{
		{
			name:   "100 MB of zeros",
			script: `echo $$ >&2; head -c 100000000 /dev/zero`,
			want:   make([]byte, DefaultMaxStdout),
		},
		{
			name:   "yes",
			script: `echo $$ >&2; exec yes`,
			want:   bytes.Repeat([]byte("y\n"), DefaultMaxStdout/2),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, script(tc.script))
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var got Result
			var err error
			returns(t, "Run", func() { got, err = runUnbusy(t.Context(), baseSpec(dir)) })
			runtime.ReadMemStats(&after)
			// Keeping the 4 MiB in a growing buffer allocates at most about
			// twice that; buffering the flood would allocate 100 MB.
			const maxAlloc = 32 << 20
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("Run allocated %d bytes", alloc)
			if alloc > maxAlloc {
				t.Errorf("Run allocated %d bytes, want at most %d", alloc, maxAlloc)
			}
			want := errOf{Kind: KindOverflow, Msg: "tools/run.sh: wrote more than 4 MiB to stdout"}
			if diff := cmp.Diff(want, describe(t, err)); diff != "" {
				t.Errorf("Run error (-want +got):\n%s", diff)
			}
			if !bytes.Equal(got.Stdout, tc.want) {
				t.Errorf("Stdout has %d bytes, starting %.20q; want the first %d bytes of the flood",
					len(got.Stdout), got.Stdout, len(tc.want))
			}
			checkGone(t, leadingPids(t, got.Stderr)[0])
		})
	}
}

// TestRunEscapedChild checks that a process that left the program's group
// and holds its stdout open does not keep Run waiting: Run closes the pipe
// after WaitDelay.
func TestRunEscapedChild(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, script(`setsid sh -c 'echo $$ >escaped; exec sleep 1000' &
		while [ ! -s escaped ]; do sleep 0.01; done
		echo ok`))
	var got Result
	var err error
	returns(t, "Run", func() { got, err = runUnbusy(t.Context(), baseSpec(dir)) })
	b, readErr := os.ReadFile(filepath.Join(dir, "escaped"))
	if readErr != nil {
		t.Fatal(readErr)
	}
	escaped := leadingPids(t, b)[0]
	t.Cleanup(func() { _ = syscall.Kill(escaped, syscall.SIGKILL) })
	if !proctest.Alive(escaped) {
		t.Errorf("the escaped process %d is dead: the test did not test an escape", escaped)
	}
	if diff := cmp.Diff(Result{Stdout: []byte("ok\n")}, got, cmpResult...); diff != "" {
		t.Errorf("Run result (-want +got):\n%s", diff)
	}
	if err != nil {
		t.Errorf("Run error = %v, want nil", err)
	}
}

func TestRunCanceledBeforeStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, script(`touch ran`))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got, err := runUnbusy(ctx, baseSpec(dir))
	if diff := cmp.Diff(Result{}, got); diff != "" {
		t.Errorf("Run result (-want +got):\n%s", diff)
	}
	want := errOf{Kind: KindCanceled, Msg: "tools/run.sh: canceled: context canceled"}
	if diff := cmp.Diff(want, describe(t, err)); diff != "" {
		t.Errorf("Run error (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the program ran (stat ran: %v)", err)
	}
}

func TestCommand(t *testing.T) {
	t.Parallel()
	type config struct {
		Path      string
		Args      []string
		Dir       string
		Env       []string
		EnvNil    bool
		Stdin     bool
		Stdout    bool
		Stderr    bool
		Setpgid   bool
		Cancel    bool
		WaitDelay time.Duration
	}
	tests := []struct {
		name string
		spec func(s *Invocation, dir string)
		want config // with "$DIR" for the temporary directory
	}{
		{
			name: "path program",
			spec: func(s *Invocation, _ string) { s.Args = []string{"-v"} },
			want: config{Path: "tools/run.sh", Args: []string{"tools/run.sh", "-v"}, Dir: "$DIR",
				Env: []string{"PATH=/usr/bin:/bin"}, Setpgid: true, Cancel: true, WaitDelay: WaitDelay},
		},
		{
			name: "program found in PATH",
			spec: func(s *Invocation, dir string) {
				s.Program = "run.sh"
				s.Env = []string{"PATH=" + filepath.Join(dir, "tools")}
			},
			want: config{Path: "$DIR/tools/run.sh", Args: []string{"run.sh"}, Dir: "$DIR",
				Env: []string{"PATH=$DIR/tools"}, Setpgid: true, Cancel: true, WaitDelay: WaitDelay},
		},
		{
			name: "stdin and nil Env",
			spec: func(s *Invocation, _ string) { s.Stdin, s.Env = []byte("x"), nil },
			want: config{Path: "tools/run.sh", Args: []string{"tools/run.sh"}, Dir: "$DIR",
				Env: []string{}, Stdin: true, Setpgid: true, Cancel: true, WaitDelay: WaitDelay},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeFiles(t, dir, script(`echo hi`))
			s := baseSpec(dir)
			tc.spec(&s, dir)
			cmd, err := Command(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			got := config{
				Path: cmd.Path, Args: cmd.Args, Dir: cmd.Dir, Env: cmd.Env, EnvNil: cmd.Env == nil,
				Stdin: cmd.Stdin != nil, Stdout: cmd.Stdout != nil, Stderr: cmd.Stderr != nil,
				Setpgid: cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid,
				Cancel:  cmd.Cancel != nil, WaitDelay: cmd.WaitDelay,
			}
			dirs := func(s string) string { return strings.ReplaceAll(s, "$DIR", dir) }
			want := tc.want
			want.Path, want.Dir = dirs(want.Path), dirs(want.Dir)
			for i := range want.Env {
				want.Env[i] = dirs(want.Env[i])
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Command (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := baseSpec(dir)
	s.Program = "tools/missing"
	cmd, err := Command(t.Context(), s)
	if cmd != nil {
		t.Errorf("Command returned a command with the error")
	}
	want := errOf{Kind: KindStart, Msg: "tools/missing: not found"}
	if diff := cmp.Diff(want, describe(t, err)); diff != "" {
		t.Errorf("Command error (-want +got):\n%s", diff)
	}
}

// TestCommandCancelKillsTheGroup uses a command the way an MCP client
// transport does: its own pipes, then canceling the context.
func TestCommandCancelKillsTheGroup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, script(`echo $$; sleep 1000 >/dev/null 2>&1 </dev/null & echo $!; cat`))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cmd, err := Command(ctx, baseSpec(dir))
	if err != nil {
		t.Fatal(err)
	}
	stdin, pids := startWithPids(t, cmd)
	defer stdin.Close()
	cancel()
	returns(t, "Wait after cancel", func() { err = cmd.Wait() })
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || exitErr.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("Wait = %v, want the program killed by SIGKILL", err)
	}
	checkGone(t, pids[0], pids[1:]...)
}

func TestEach(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		limit int
		n     int
		want  int // the most calls at once
	}{
		{name: "one at a time", limit: 1, n: 5, want: 1},
		{name: "limit below n", limit: 3, n: 20, want: 3},
		{name: "limit above n", limit: 8, n: 3, want: 3},
		{name: "limit equal to n", limit: 4, n: 4, want: 4},
		{name: "zero limit is NumCPU", limit: 0, n: 3 * runtime.NumCPU(), want: runtime.NumCPU()},
		{name: "negative limit is NumCPU", limit: -1, n: 3 * runtime.NumCPU(), want: runtime.NumCPU()},
		{name: "no calls", limit: 2, n: 0, want: 0},
	}
	type key struct{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.WithValue(t.Context(), key{}, "ctx")
			var (
				calls = make([]atomic.Int32, tc.n)
				held  = newAtOnce(tc.want)
			)
			Each(ctx, tc.limit, tc.n, func(ctx context.Context, i int) {
				if ctx.Value(key{}) != "ctx" {
					t.Errorf("f(%d) did not get Each's context", i)
				}
				calls[i].Add(1)
				held.hold(t, i)
			})
			if got := held.most.Load(); got != int32(tc.want) {
				t.Errorf("at most %d calls at once, want %d", got, tc.want)
			}
			for i := range calls {
				if got := calls[i].Load(); got != 1 {
					t.Errorf("f(%d) called %d times, want 1", i, got)
				}
			}
		})
	}
}

func TestEachAfterCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var calls atomic.Int32
	Each(ctx, 2, 10, func(ctx context.Context, _ int) {
		if ctx.Err() == nil {
			t.Error("f got a context that is not done")
		}
		calls.Add(1)
	})
	if got := calls.Load(); got != 10 {
		t.Errorf("%d calls, want 10", got)
	}
}

// TestRunTimeoutBeforeStart: a timeout so short that it has passed before
// the program starts is a timeout, and the program does not run.
func TestRunTimeoutBeforeStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, script(`touch ran`))
	s := baseSpec(dir)
	s.Timeout = time.Nanosecond
	got, err := runUnbusy(t.Context(), s)
	if diff := cmp.Diff(Result{}, got); diff != "" {
		t.Errorf("Run result (-want +got):\n%s", diff)
	}
	want := errOf{Kind: KindTimeout, Msg: "tools/run.sh: timed out after 1ns"}
	if diff := cmp.Diff(want, describe(t, err)); diff != "" {
		t.Errorf("Run error (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the program ran (stat ran: %v)", err)
	}
}

func TestKindString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind Kind
		want string
	}{
		{KindStart, "start"},
		{KindTimeout, "timeout"},
		{KindCanceled, "canceled"},
		{KindOverflow, "overflow"},
		{KindExit, "exit"},
		{KindSignal, "signal"},
		{Kind(0), "Kind(0)"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			if got := tc.kind.String(); got != tc.want {
				t.Errorf("Kind(%d).String() = %q, want %q", int(tc.kind), got, tc.want)
			}
		})
	}
}

// startWithPids starts cmd, a script that prints its pid and a child's on
// its first two lines, and returns its stdin and the pids.
func startWithPids(t *testing.T, cmd *Cmd) (io.WriteCloser, []int) {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out []byte
	buf := make([]byte, 64)
	for bytes.Count(out, []byte("\n")) < 2 {
		n, err := stdout.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			t.Fatalf("reading the pids: %v (read %q)", err, out)
		}
	}
	return stdin, leadingPids(t, out)
}
