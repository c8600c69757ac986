// Package hostile makes the inputs an attacker would give strata: layer
// files that nest too deep, flood it with problems, extend too many files,
// are not files at all, are too big or badly encoded, and variables and
// arguments of the same kind. Tests check that each ends with one clear,
// positioned problem; benchmarks measure the time and memory it takes.
// The inputs are generated, so that nothing big is kept in the repository.
package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Where says what the first problem of an input names.
type Where int

// Places.
const (
	// AtLine: the layer file, with a line and column.
	AtLine Where = iota
	// AtFile: the layer file, without a position (it has no text).
	AtFile
	// AtEnv: the variable.
	AtEnv
	// AtCfg: the --cfg argument.
	AtCfg
	// Accepted: strata reads the input without a problem.
	Accepted
)

// An Input is one hostile input: a workspace file under .strata/, or
// variables and arguments.
type Input struct {
	Name string
	// Layer is the workspace file's name under .strata/ (config.toml,
	// config.json or config.yaml); "" for an input of variables or
	// arguments alone.
	Layer string
	// Content returns the file's bytes, for a regular file.
	Content func() []byte
	// Special makes the file something else than a regular file:
	// "devzero" (a symbolic link to /dev/zero, as git can store), "fifo"
	// (a named pipe) or "dir" (a directory).
	Special string
	// Files returns other files under .strata/, such as the files an
	// extends names.
	Files func() map[string][]byte
	// Env are NAME=VALUE variables; Cfg are --cfg arguments.
	Env, Cfg []string
	// Where is what the first problem names; Want is a part of its text.
	Where Where
	Want  string
	// At is the start of the name, under .strata/, of the file the first
	// problem names, when it is not Layer.
	At string
}

// Source returns the start of the name of the file the first problem
// names, for an input in the workspace at root.
func (in Input) Source(root string) string {
	at := in.At
	if at == "" {
		at = in.Layer
	}
	return filepath.Join(root, ".strata", at)
}

// Inputs returns every hostile input.
func Inputs() []Input {
	return []Input{
		{Name: "deep-json", Layer: "config.json", Where: AtLine, Want: "nest deeper than 1,000 levels",
			Content: func() []byte {
				const n = 150_000 // 900 KB
				return []byte(`{"tools":{"x":{"options":` + strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) + "}}}")
			}},
		{Name: "deep-toml-header", Layer: "config.toml", Where: AtLine, Want: "nest deeper than 1,000 levels",
			Content: func() []byte { return []byte("[tools.x.options" + strings.Repeat(".a", 400_000) + "]\nv = 1\n") }},
		{Name: "deep-toml-dotted-key", Layer: "config.toml", Where: AtLine, Want: "nest deeper than 1,000 levels",
			Content: func() []byte { return []byte("[tools.x]\noptions" + strings.Repeat(".a", 400_000) + " = 1\n") }},
		{Name: "deep-toml-inline", Layer: "config.toml", Where: AtLine, Want: "nest deeper than 1,000 levels",
			Content: func() []byte {
				const n = 100_000
				return []byte("[tools.x]\noptions.a = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n")
			}},
		{Name: "deep-yaml-flow", Layer: "config.yaml", Where: AtLine, Want: "nest deeper than 1,000 levels",
			Content: func() []byte {
				const n = 100_000
				return []byte("tools:\n  x:\n    options:\n      a: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n")
			}},
		{Name: "deep-yaml-sequences", Layer: "config.yaml", Where: AtLine, Want: "nest deeper than 1,000 levels",
			Content: func() []byte {
				return []byte("tools:\n  x:\n    options:\n      a:\n        " + strings.Repeat("- ", 20_000) + "x\n")
			}},
		{Name: "duplicate-keys", Layer: "config.json", Where: AtLine, Want: "tools.x.a is defined twice",
			Content: func() []byte {
				// 234 KB of minified JSON, 40,000 problems on one line.
				return []byte(`{"tools":{"x":{` + strings.Repeat(`"a":1,`, 40_000) + `"a":1}}}`)
			}},
		{Name: "unknown-keys", Layer: "config.toml", Where: AtLine, Want: "unknown key",
			Content: func() []byte {
				var b strings.Builder
				b.WriteString("[tools.x]\n")
				for i := range 100_000 {
					fmt.Fprintf(&b, "k%d=1\n", i)
				}
				return []byte(b.String())
			}},
		{Name: "extends-fan-out", Layer: "config.toml", Where: AtLine, Want: "read more than 64 files", At: "fan/",
			Content: func() []byte { return []byte("extends = [\"fan/0/*.toml\"]\n") },
			Files: func() map[string][]byte {
				// Two files a level, each extending both of the next:
				// 2^44 files to read.
				const levels = 44
				files := map[string][]byte{}
				for i := range levels {
					for _, f := range []string{"a", "b"} {
						content := ""
						if i+1 < levels {
							content = fmt.Sprintf("extends = [\"../%d/*.toml\"]\n", i+1)
						}
						files[fmt.Sprintf("fan/%d/%s.toml", i, f)] = []byte(content)
					}
				}
				return files
			}},
		{Name: "dense-yaml", Layer: "config.yaml", Where: AtLine, Want: "the file holds more than 320,000 values",
			// Half a million numbers in 1 MiB: memory follows values,
			// not bytes.
			Content: func() []byte { return []byte("tools:\n  x:\n    options:\n      a: [" + numbers(1<<19-100) + "]\n") }},
		{Name: "dense-files", Layer: "config.toml", Where: AtLine, Want: "the layer files of this load hold more than 320,000 values", At: "dense/1",
			Content: func() []byte { return []byte("extends = [\"dense/*.json\"]\n") },
			Files: func() map[string][]byte {
				// Files within every limit of their own, past the
				// limit of one load together.
				files := map[string][]byte{}
				for i := range 7 {
					files[fmt.Sprintf("dense/%d.json", i)] = []byte(fmt.Sprintf(`{"tools": {"x%d": {"options": {"a": [%s]}}}}`, i, numbers(200_000)))
				}
				return files
			}},
		{Name: "symlink-to-dev-zero", Layer: "config.toml", Special: "devzero", Where: AtFile, Want: "is a device (through a symbolic link to /dev/zero), not a layer file"},
		{Name: "named-pipe", Layer: "config.toml", Special: "fifo", Where: AtFile, Want: "is a named pipe, not a layer file"},
		{Name: "directory", Layer: "config.toml", Special: "dir", Where: AtFile, Want: "is a directory, not a layer file"},
		{Name: "too-large", Layer: "config.toml", Where: AtFile, Want: "is larger than 1 MiB, the limit for a layer file",
			Content: func() []byte { return []byte("# " + strings.Repeat("x", 2<<20) + "\n") }},
		{Name: "invalid-utf8-json", Layer: "config.json", Where: AtLine, Want: "invalid UTF-8: the byte 0xff",
			Content: func() []byte { return []byte("{\"tools\": {\"x\": {\"summary\": \"\xff\"}}}") }},
		{Name: "nul-yaml", Layer: "config.yaml", Where: AtLine, Want: "a NUL byte (U+0000) is not allowed",
			Content: func() []byte { return []byte("tools:\n  x:\n    summary: \"a\x00\"\n") }},
		{Name: "invalid-utf8-yaml", Layer: "config.yaml", Where: AtLine, Want: "invalid UTF-8: the byte 0xfe",
			Content: func() []byte { return []byte("tools:\n  x:\n    summary: \"a\xfe\"\n") }},
		{Name: "utf16", Layer: "config.toml", Where: AtLine, Want: "the file is UTF-16",
			Content: func() []byte { return []byte("\xff\xfe[\x00t\x00]\x00") }},
		{Name: "byte-order-mark", Layer: "config.toml", Where: Accepted,
			Content: func() []byte { return []byte("\ufeff[tools.x]\nsource = \"builtin\"\nsummary = \"BOM\"\n") }},
		{Name: "long-key", Layer: "config.toml", Where: AtLine, Want: "unknown key",
			Content: func() []byte { return []byte("[tools.x]\n" + strings.Repeat("k", 900<<10) + " = 1\n") }},
		{Name: "long-value", Layer: "config.toml", Where: AtLine, Want: "expected one of",
			Content: func() []byte { return []byte("[tools.x]\nrun = \"" + strings.Repeat("v", 900<<10) + "\"\n") }},
		{Name: "unset-deep-path", Layer: "config.toml", Where: AtLine, Want: "the key path has 100,003 keys, more than the limit of 1,000",
			Content: func() []byte { return []byte("unset = [\"tools.x.options" + strings.Repeat(".a", 100_000) + "\"]\n") }},
		{Name: "env-empty-key", Env: []string{"STRATA_=x"}, Where: AtEnv, Want: "the name has no key after STRATA_"},
		{Name: "env-invalid-utf8-key", Env: []string{"STRATA_TOOLS_\xff_RUN=ask"}, Where: AtEnv, Want: "the name is not valid UTF-8"},
		{Name: "env-ambiguous-name", Env: []string{"STRATA_TOOLS_X_OPTIONS_" + strings.Repeat("A_", 60) + "B=1"}, Where: AtEnv, Want: "the name reads as too many key paths"},
		{Name: "env-deep-name", Env: []string{"STRATA_TOOLS__X__OPTIONS__" + strings.Repeat("A__", 2000) + "B=1"}, Where: AtEnv, Want: "the key path has 2,004 keys, more than the limit of 1,000"},
		{Name: "cfg-deep-path", Cfg: []string{"tools.x.options" + strings.Repeat(".a", 5000) + "=1"}, Where: AtCfg, Want: "the key path has 5,003 keys, more than the limit of 1,000"},
		// 120 KB: an argument may be 128 KB at most.
		{Name: "cfg-deep-json", Cfg: []string{"tools.x.options:=" + strings.Repeat(`{"a":`, 20_000) + "1" + strings.Repeat("}", 20_000)}, Where: AtCfg, Want: "nest deeper than 1,000 levels"},
	}
}

// numbers returns n ones separated by commas.
func numbers(n int) string { return strings.TrimSuffix(strings.Repeat("1,", n), ",") }

// Workspace returns a new workspace directory (with .strata/) and a
// directory for the user's files, under t's temporary directory.
func Workspace(t testing.TB) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root, home
}

// Write puts the input's files in the workspace at root, replacing what
// is there: each file appears whole, under its name, in one step (a
// rename), as an editor saves it.
func (in Input) Write(t testing.TB, root string) {
	t.Helper()
	dir := filepath.Join(root, ".strata")
	if in.Files != nil {
		for name, content := range in.Files() {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if in.Layer == "" {
		return
	}
	target := filepath.Join(dir, in.Layer)
	tmp := filepath.Join(dir, ".new-"+in.Layer)
	var err error
	switch in.Special {
	case "devzero":
		err = os.Symlink("/dev/zero", tmp)
	case "fifo":
		err = Mkfifo(tmp)
	case "dir":
		if err = os.RemoveAll(target); err == nil {
			err = os.Mkdir(target, 0o755)
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	default:
		err = os.WriteFile(tmp, in.Content(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		t.Fatal(err)
	}
}
