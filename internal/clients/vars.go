package clients

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/doc"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/partial"
)

// varError is a variable that cannot be expanded.
type varError struct {
	msg, hint string
	err       error // the cause, when there is one
}

func (e *varError) Error() string { return e.msg }
func (e *varError) Unwrap() error { return e.err }

// editorVars are VS Code's variables that depend on the editor's state,
// which strata cannot know.
var editorVars = []string{
	"file", "fileWorkspaceFolder", "fileWorkspaceFolderBasename", "relativeFile", "relativeFileDirname",
	"fileBasename", "fileBasenameNoExtension", "fileExtname", "fileDirname", "fileDirnameBasename",
	"cwd", "lineNumber", "columnNumber", "selectedText", "execPath", "defaultBuildTask", "extensionInstallFolder",
}

// editorVarNames are the variables Cursor and VS Code resolve, for
// did-you-mean.
var editorVarNames = []string{"env:", "userHome", "workspaceFolder", "workspaceFolderBasename", "pathSeparator", "/"}

// expand expands the variables of one server's strings in place, by the
// rules of the client that wrote the file.
func (fi *foreignFile) expand(srv *doc.Node, p partial.Path) {
	switch fi.f {
	case Codex:
		return // Codex expands nothing
	case Claude, mcpServers:
		fi.literal(srv, p)
		return
	}
	keys := expanded[fi.f]
	for _, e := range srv.Entries {
		if keys != nil && !slices.Contains(keys, e.Key) || fi.f == VSCode && e.Key == "type" {
			continue
		}
		fi.walk(e, p.Append(e.Key))
	}
}

// literal checks the strings of a server whose client expands no
// variables: Claude Desktop passes ${X} on as written, which strata does
// too, saying so; a file whose client cannot be told asks to be named.
func (fi *foreignFile) literal(srv *doc.Node, p partial.Path) {
	n, at := findRef(srv, p)
	switch {
	case n == nil:
	case fi.f == Claude:
		fi.warn(diag.CodeBadValue, n, at, "Claude Desktop expands no variables: "+firstRef(n.Str)+" is passed as written", "if Claude Code or Cursor wrote this file, name it: --cfg claude-code:PATH or cursor:PATH")
	case !fi.unnamed:
		fi.unnamed = true
		fi.fail(diag.CodeForeign, n, at, "the file's variables ("+firstRef(n.Str)+") depend on the client that wrote it, which its name does not tell",
			"name it: --cfg claude-code:PATH (${NAME}), cursor:PATH (${env:NAME}) or claude:PATH (no variables), or format = \"...\" in extends")
	}
}

// findRef returns the first string under n that holds a ${...} reference.
func findRef(n *doc.Node, p partial.Path) (*doc.Node, partial.Path) {
	switch n.Kind {
	case doc.String:
		if _, _, ok := refAt(n.Str); ok {
			return n, p
		}
	case doc.Table, doc.Array:
		for i, e := range n.Entries {
			k := e.Key
			if n.Kind == doc.Array {
				k = strconv.Itoa(i)
			}
			if m, at := findRef(e, p.Append(k)); m != nil {
				return m, at
			}
		}
	}
	return nil, nil
}

// refAt returns the span of the first ${...} reference of s.
func refAt(s string) (int, int, bool) {
	i := strings.Index(s, "${")
	if i < 0 {
		return 0, 0, false
	}
	j := strings.IndexByte(s[i+2:], '}')
	if j < 0 {
		return 0, 0, false
	}
	return i, i + 3 + j, true
}

func firstRef(s string) string {
	i, j, _ := refAt(s)
	return s[i:j]
}

// walk expands the strings under n.
func (fi *foreignFile) walk(n *doc.Node, p partial.Path) {
	switch n.Kind {
	case doc.String:
		written, resolve, secret := n.Str, fi.resolver(n, p), false
		out, errs := expandRefs(n.Str, func(body string) (string, bool, error) {
			v, ok, err := resolve(body)
			secret = secret || ok && err == nil && fi.secretRef(body)
			return v, ok, err
		})
		n.Str = out
		if secret {
			fi.secret(n, written)
		}
		for _, err := range errs {
			e := fi.d.errAt(diag.CodeBadValue, n, p, err.Error(), "")
			var ve *varError
			if errors.As(err, &ve) {
				e.Hint, e.Err = ve.hint, ve.err
			}
			fi.errs = append(fi.errs, e)
		}
	case doc.Table, doc.Array:
		for i, e := range n.Entries {
			k := e.Key
			if n.Kind == doc.Array {
				k = strconv.Itoa(i)
			}
			fi.walk(e, p.Append(k))
		}
	}
}

// resolver returns the function that resolves the body of one reference
// in the string node n, by the client's rules.
func (fi *foreignFile) resolver(n *doc.Node, p partial.Path) func(string) (string, bool, error) {
	if fi.f == ClaudeCode {
		return func(body string) (string, bool, error) {
			v, ok, err := fi.claudeCodeVar(body)
			if ok {
				fi.checkRef(n, p, body, v)
			}
			return v, ok, err
		}
	}
	return func(body string) (string, bool, error) {
		v, ok, err := fi.editorVar(body)
		if ok {
			fi.checkRef(n, p, body, v)
		}
		if err == nil && !ok {
			hint := "write the value out"
			if c := suggest.Closest(body, editorVarNames); c != "" {
				hint = "did you mean ${" + c + "}?"
			}
			fi.warnings = append(fi.warnings, fi.d.errAt(diag.CodeBadValue, n, p, fmt.Sprintf("${%s} is not %s variable; it is passed as written", body, fi.f.aClient()), hint))
		}
		return v, ok, err
	}
}

// checkRef records a reference whose value resolves into the untrusted
// workspace: ${workspaceFolder} and ${workspaceFolderBasename} when the
// folder is the workspace (or in it), and any variable whose value names
// a path there (${env:PWD}, say).
func (fi *foreignFile) checkRef(n *doc.Node, p partial.Path, body, v string) {
	ws := fi.im.Untrusted
	into := false
	switch body {
	case "workspaceFolder", "workspaceFolderBasename":
		into = ws.Holds(fi.workspaceFolder())
	default:
		into = ws.Names(v) || filepath.IsAbs(v) && ws.Holds(v)
	}
	if into {
		fi.refuse(n, p, ws.Refuse(untrusted.Reference, "${"+body+"}"))
	}
}

// claudeCodeVar resolves ${NAME} and ${NAME:-default} as Claude Code does:
// the variable's value when it is set (even empty), else the default,
// else an error.
func (fi *foreignFile) claudeCodeVar(body string) (string, bool, error) {
	name, def, hasDef := strings.Cut(body, ":-")
	if !validVarName(name) {
		hint := "Claude Code expands ${NAME} and ${NAME:-default}"
		if rest, ok := strings.CutPrefix(body, "env:"); ok && validVarName(rest) {
			hint = "write ${" + rest + "}: " + hint
		}
		return "", false, &varError{msg: fmt.Sprintf("${%s} is not a variable", body), hint: hint}
	}
	if v, ok := fi.im.Environ[name]; ok {
		return v, true, nil
	}
	if hasDef {
		return def, true, nil
	}
	return "", false, &varError{msg: "the variable " + name + " is not set", hint: "set it, or give a default: ${" + name + ":-value}"}
}

// editorVar resolves the variables of Cursor and VS Code; ok is false for
// a reference that is none of theirs, which they pass on as written.
func (fi *foreignFile) editorVar(body string) (string, bool, error) {
	switch body {
	case "userHome":
		if h := fi.im.home(); h != "" {
			return h, true, nil
		}
		return "", false, &varError{msg: "${userHome}: HOME is not set"}
	case "workspaceFolder":
		return fi.workspaceFolder(), true, nil
	case "workspaceFolderBasename":
		return filepath.Base(fi.workspaceFolder()), true, nil
	case "pathSeparator", "/":
		return string(filepath.Separator), true, nil
	}
	if name, ok := strings.CutPrefix(body, "env:"); ok {
		if v, ok := fi.im.Environ[name]; ok {
			return v, true, nil
		}
		return "", false, &varError{msg: "the variable " + name + " is not set", hint: "set it before running strata"}
	}
	if fi.f != VSCode {
		return "", false, nil
	}
	if id, ok := strings.CutPrefix(body, "input:"); ok {
		v, err := fi.input(id)
		return v, err == nil, err
	}
	kind, _, _ := strings.Cut(body, ":")
	if slices.Contains(editorVars, body) || kind == "config" || kind == "command" || kind == "workspaceFolder" {
		return "", false, &varError{msg: fmt.Sprintf("${%s} depends on VS Code and cannot be resolved outside it", body), hint: "write the value out"}
	}
	return "", false, nil
}

// readInputs reads VS Code's inputs list.
func (fi *foreignFile) readInputs(n *doc.Node) {
	fi.inputs = map[string]*doc.Node{}
	if n == nil {
		return
	}
	p := partial.Path{"inputs"}
	if n.Kind != doc.Array {
		fi.fail(diag.CodeType, n, p, "expected a list of inputs, found "+n.Kind.String(), "")
		return
	}
	for i, in := range n.Entries {
		at := p.Append(strconv.Itoa(i))
		id := in.Get("id")
		switch {
		case in.Kind != doc.Table:
			fi.fail(diag.CodeType, in, at, "expected an input table, found "+in.Kind.String(), "")
		case id == nil || id.Kind != doc.String || id.Str == "":
			fi.fail(diag.CodeInvalid, in, at, "an input needs an id", `write { "type": "promptString", "id": "api-key", "description": "API key" }`)
		case fi.inputs[id.Str] != nil:
			fi.fail(diag.CodeInvalid, id, at.Append("id"), fmt.Sprintf("the input %s is declared twice", id.Str), "")
		default:
			fi.inputs[id.Str] = in
			fi.inputIDs = append(fi.inputIDs, id.Str)
		}
	}
}

// input answers ${input:id}: a promptString input is asked for through
// App.Input, with its description. An answer is asked for once in a load;
// a password's once in a file, and kept nowhere.
func (fi *foreignFile) input(id string) (string, error) {
	in := fi.inputs[id]
	if in == nil {
		hint := `declare it in inputs: { "type": "promptString", "id": "` + id + `", "description": "..." }`
		if c := suggest.Closest(id, fi.inputIDs); c != "" {
			hint = "did you mean ${input:" + c + "}?"
		}
		return "", &varError{msg: "no input named " + id + " is declared in inputs", hint: hint}
	}
	str := func(key string) string {
		if n := in.Get(key); n != nil && n.Kind == doc.String {
			return n.Str
		}
		return ""
	}
	switch t := str("type"); t {
	case "promptString":
	case "pickString":
		return "", &varError{msg: fmt.Sprintf("the input %s is a pickString (a choice from a list), which strata does not ask for", id), hint: "write the chosen value out"}
	case "command":
		return "", &varError{msg: fmt.Sprintf("the input %s runs a VS Code command, which strata cannot do", id), hint: "write the value out"}
	default:
		return "", &varError{msg: fmt.Sprintf("the input %s has type %q; expected promptString", id, t)}
	}
	pw := in.Get("password")
	password := pw != nil && pw.Kind == doc.Bool && pw.Bool
	if v, ok := fi.passwords[id]; ok && password {
		return v, nil
	}
	if v, ok := fi.im.answers[id]; ok && !password {
		return v, nil
	}
	desc := str("description")
	if fi.im.Input == nil {
		what := "the input " + id
		if desc != "" {
			what += fmt.Sprintf(" (%q)", desc)
		}
		return "", &varError{msg: what + " must be asked for on a terminal, and there is none", hint: "run strata in a terminal, or write the value out"}
	}
	v, err := fi.im.Input(fi.ctx, id, desc, password)
	if err != nil {
		return "", &varError{msg: fmt.Sprintf("asking for the input %s: %v", id, err), err: err}
	}
	if def := in.Get("default"); v == "" && def != nil && def.Kind == doc.String {
		v = def.Str
	}
	if password {
		fi.passwords[id] = v
	} else {
		fi.im.answers[id] = v
	}
	return v, nil
}

// secretRef reports whether the reference ${body} takes its value from the
// user's environment or an input, which may hold a secret: ${NAME} of
// Claude Code, ${env:NAME} and ${input:id} of Cursor and VS Code. The
// editor's own variables (${userHome}, ${workspaceFolder}, ...) are paths.
func (fi *foreignFile) secretRef(body string) bool {
	if fi.f == ClaudeCode {
		return true
	}
	return strings.HasPrefix(body, "env:") || strings.HasPrefix(body, "input:")
}
