// Package policy reads policy layers and clamps a config to them. A
// policy layer ranks above every other layer, and its values are
// constraints, not values: the run and result modes a tool may have (run
// = ["ask", "skip"]), and the MCP servers that may start, named by what
// they launch (program, arguments and the program's digest; or a remote
// server's URL origin), never by the key a config gives them.
//
// A policy comes from where an organisation puts it (a system path such
// as /etc/strata/policy.toml, a path the host names, a koanf provider
// such as etcd), never from a workspace: [FromFile] refuses a file inside
// one. Several policies combine so that each only narrows: the allowed
// modes of every policy are intersected, a server must be in the allow
// list of every policy that has one (allow lists intersect), and a server
// in any deny list is out (deny lists unite).
//
// [Set.Clamp] moves each value outside the policies to the nearest one
// they allow, and reports each move once, with the policy's reason
// ([Clamp]); a host that is strict makes each an error.
//
// A policy file:
//
//	reason = "SOC2"                      # the reason of every constraint that gives none
//
//	[tools.'*']                          # every tool; or a tool's name
//	run = ["ask", "skip"]                # the run modes allowed
//	result = ["unattended", "ask"]       # the result modes allowed
//
//	[[servers.allow]]                    # a server starts only if it is one of these
//	command = "npx"                      # found in PATH as the server's command is
//	args = ["-y", "@modelcontextprotocol/server-filesystem", "."]
//	sha256 = "…"                         # optional: the program's content: 64 hexadecimal digits, alone or after sha256:
//
//	[[servers.deny]]
//	url = "https://mcp.example.com"      # a remote server, by its origin
//	reason = "not reviewed"
package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/kballard/go-shellquote"
	"github.com/pelletier/go-toml/v2"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/origin"
	"github.com/strata-config/strata/internal/readfile"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// SystemPath is where strata's command reads the organisation's policy
// from, when the file exists.
const SystemPath = "/etc/strata/policy.toml"

// MaxFile is the largest policy file read.
const MaxFile = 1 << 20

// Policy is one policy layer.
type Policy struct {
	// Source says where it comes from: a file path, or a source's name
	// ("koanf etcd://10.0.0.1:2379/org").
	Source string
	// Reason is the reason of each constraint that gives none of its own.
	Reason string
	// Tools are the constraints on tools, by tool name; [config.EveryTool]
	// ("*") constrains every tool.
	Tools map[string]Tools
	// Servers are the MCP servers that may start.
	Servers Servers
	// AllowTools, when not nil, are the only tools given to a model, and
	// DenyTools tools never given: patterns as a tool set's, over a
	// tool's name and its source (mcp.<server>.<tool>, local.<tool>).
	AllowTools, DenyTools []string
	doc                   *codec.Document
}

// Equal reports whether p and o are the same policy, read from the same
// source. It lets go-cmp compare policies.
func (p Policy) Equal(o Policy) bool {
	return p.Source == o.Source && p.Reason == o.Reason && reflect.DeepEqual(p.Tools, o.Tools) &&
		slices.Equal(p.AllowTools, o.AllowTools) && slices.Equal(p.DenyTools, o.DenyTools) &&
		reflect.DeepEqual(p.Servers, o.Servers) && p.doc.Equal(o.doc)
}

// Tools constrains the tools of one entry of a policy.
type Tools struct {
	// Run and Result are the modes allowed; nil allows every mode.
	Run    []config.RunMode    `toml:"run" json:"run"`
	Result []config.ResultMode `toml:"result" json:"result"`
	Reason string              `toml:"reason" json:"reason"`
	// Parameters bound the tool's parameters, by name: enum, minimum,
	// maximum, exclusive_minimum, exclusive_maximum, min_length,
	// max_length, min_items, max_items and pattern, which every layer may
	// only narrow. Only a tool's own entry takes them, not '*'.
	Parameters map[string]config.Parameter `toml:"parameters" json:"parameters"`
}

// Servers says which MCP servers may start, by what they launch.
type Servers struct {
	// Allow, when not nil, lists the only servers that may start; Deny
	// lists servers that may not.
	Allow  []Launch `toml:"allow" json:"allow"`
	Deny   []Launch `toml:"deny" json:"deny"`
	Reason string   `toml:"reason" json:"reason"`
}

// Launch names servers by what they launch: a program (Command, found
// in PATH as a server's command is), its arguments, exactly, and the
// SHA-256 of the program's content when set; or a remote server's URL,
// by its origin (scheme, host and port).
//
// SHA256 is 64 hexadecimal digits, in either case, alone or after
// "sha256:" as strata trust --pin writes a digest; a policy read ([Parse],
// [FromMap]) holds it as a pin does, "sha256:" and the digits in lower
// case, and refuses anything else.
type Launch struct {
	Command string   `toml:"command" json:"command"`
	Args    []string `toml:"args" json:"args"`
	SHA256  string   `toml:"sha256" json:"sha256"`
	URL     string   `toml:"url" json:"url"`
	Reason  string   `toml:"reason" json:"reason"`
}

// String writes the launch for messages.
func (l Launch) String() string {
	if l.URL != "" {
		return l.URL
	}
	s := strings.Join(append([]string{l.Command}, l.Args...), " ")
	if d, ok := digestOf(l.SHA256); ok {
		s += " (" + d + ")"
	} else if l.SHA256 != "" {
		s += " (sha256 " + l.SHA256 + ")"
	}
	return s
}

// file is a policy document's shape.
type file struct {
	Reason     string           `toml:"reason" json:"reason"`
	AllowTools []string         `toml:"allow_tools" json:"allow_tools"`
	DenyTools  []string         `toml:"deny_tools" json:"deny_tools"`
	Tools      map[string]Tools `toml:"tools" json:"tools"`
	Servers    Servers          `toml:"servers" json:"servers"`
}

var fileKeys = map[string][]string{
	"":          {"reason", "tools", "servers"},
	"tools":     {"run", "result", "reason", "parameters"},
	"servers":   {"allow", "deny", "reason"},
	"launch":    {"command", "args", "sha256", "url", "reason"},
	"parameter": {"enum", "minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "min_length", "max_length", "min_items", "max_items", "pattern"},
}

// FromFile reads the policy file at path. A file that does not exist gives
// nil and no error when optional is set (the system path); otherwise it is
// an error. workspace is the root of what the workspace may write
// ([load.Result.Area]: the workspace root, or outside one the repository
// around the working directory, else that directory; "" in the home
// directory, above it and in /): a policy file inside it is refused, whoever named it,
// for a policy is trusted by where it comes from and a workspace is not
// such a place.
func FromFile(ctx context.Context, path, workspace string, optional bool) (*Policy, error) {
	if inside(path, workspace) {
		return nil, &diag.Error{Code: diag.CodeRefused, Source: path, Msg: "not read: a policy file inside the workspace (" + workspace + ") would let the workspace decide its own policy",
			Hint: "keep policies where the organisation puts them: " + SystemPath + ", or a path outside the project"}
	}
	if optional {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	data, err := readfile.Regular(ctx, path, MaxFile, "a policy file")
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// inside reports whether path lies in dir (both made absolute, links
// resolved where they exist).
func inside(path, dir string) bool {
	if dir == "" {
		return false
	}
	real := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			return filepath.Join(r, filepath.Base(p))
		}
		return filepath.Clean(p)
	}
	rel, err := filepath.Rel(real(dir), real(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Parse reads a policy file's TOML; name labels it in problems.
func Parse(name string, data []byte) (*Policy, error) {
	doc, err := codec.Parse(name, data, partial.TOML)
	if err != nil {
		return nil, err
	}
	var f file
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, tomlError(name, err)
	}
	p := &Policy{Source: name, Reason: f.Reason, Tools: f.Tools, Servers: f.Servers, AllowTools: f.AllowTools, DenyTools: f.DenyTools, doc: doc}
	return p, p.check()
}

// FromMap reads a policy from the values of a source (a koanf provider:
// etcd, Consul...), as [load.HostSource]'s Read returns them; name says
// where they come from.
func FromMap(name string, m map[string]any) (*Policy, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return nil, &diag.Error{Code: diag.CodeRead, Source: name, Msg: "cannot read: " + err.Error(), Err: err}
	}
	var f file
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, &diag.Error{Code: diag.CodeInvalid, Source: name, Msg: "not a policy: " + err.Error(), Err: err,
			Hint: "a policy has reason, tools.<name>.run, .result and .reason, servers.allow, .deny and .reason"}
	}
	p := &Policy{Source: name, Reason: f.Reason, Tools: f.Tools, Servers: f.Servers, AllowTools: f.AllowTools, DenyTools: f.DenyTools}
	return p, p.check()
}

// tomlError positions go-toml's problems, with a did-you-mean for an
// unknown key.
func tomlError(name string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var out diag.Errors
		for _, e := range strict.Errors {
			row, col := e.Position()
			key := e.Key()
			last := key[len(key)-1]
			known := fileKeys[""]
			switch {
			case len(key) == 3 && key[0] == "tools":
				known = fileKeys["tools"]
			case len(key) == 2 && key[0] == "servers":
				known = fileKeys["servers"]
			case len(key) == 3 && key[0] == "servers":
				known = fileKeys["launch"]
			case len(key) == 5 && key[0] == "tools" && key[2] == "parameters":
				known = fileKeys["parameter"]
			}
			d := &diag.Error{Code: diag.CodeUnknownKey, Source: name, Line: row, Column: col, Path: partial.Path(key), Msg: "unknown key of a policy"}
			if c := suggest.Closest(last, known); c != "" {
				d.Hint = "did you mean " + c + "?"
			} else {
				d.Hint = "a policy takes " + strings.Join(known, ", ") + " here"
			}
			out = append(out, d)
		}
		return out
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return &diag.Error{Code: diag.CodeInvalid, Source: name, Line: row, Column: col, Path: partial.Path(de.Key()), Msg: de.Error(), Err: err}
	}
	return &diag.Error{Code: diag.CodeInvalid, Source: name, Msg: err.Error(), Err: err}
}

// check reports what a policy cannot mean: a launch that names neither
// a program nor a URL, or both; a URL that does not parse; a digest that
// is none. It writes each launch's digest as a pin does ([digestOf]).
func (p *Policy) check() error {
	var errs diag.Errors
	for _, name := range slices.Sorted(maps.Keys(p.Tools)) {
		t := p.Tools[name]
		for _, f := range []struct {
			key   string
			modes []string
			enum  []string
		}{{"run", strs(t.Run), config.RunMode("").EnumValues()}, {"result", strs(t.Result), config.ResultMode("").EnumValues()}} {
			for i, m := range f.modes {
				if !slices.Contains(f.enum, m) {
					hint := "write one of " + strings.Join(f.enum, ", ")
					if c := suggest.Closest(m, f.enum); c != "" {
						hint = "did you mean " + c + "?"
					}
					errs = append(errs, p.problem(partial.Path{"tools", name, f.key, fmt.Sprint(i)}, fmt.Sprintf("%q is not a %s mode", m, f.key), hint))
				}
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.Tools)) {
		for _, param := range slices.Sorted(maps.Keys(p.Tools[name].Parameters)) {
			path := partial.Path{"tools", name, "parameters", param}
			if name == config.EveryTool {
				errs = append(errs, p.problem(path, "bounds a parameter of every tool", "bound the parameter of a tool by its name: [tools.<name>.parameters."+param+"]"))
				continue
			}
			if bad := notBounds(p.Tools[name].Parameters[param]); bad != "" {
				errs = append(errs, p.problem(path.Append(bad), "a policy bounds a parameter; it does not set its "+bad,
					"a policy takes enum, minimum, maximum, exclusive_minimum, exclusive_maximum, min_length, max_length, min_items, max_items and pattern"))
			}
		}
	}
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"allow_tools", p.AllowTools}, {"deny_tools", p.DenyTools}} {
		for i, pat := range list.patterns {
			if _, err := path.Match(pat, ""); err != nil || pat == "" {
				errs = append(errs, p.problem(partial.Path{list.key, fmt.Sprint(i)}, fmt.Sprintf("%q is not a pattern", pat), "write a tool's name or source, with * for any part: mcp.files.*"))
			}
		}
	}
	for _, list := range []struct {
		key string
		ls  []Launch
	}{{"allow", p.Servers.Allow}, {"deny", p.Servers.Deny}} {
		for i, l := range list.ls {
			path := partial.Path{"servers", list.key, fmt.Sprint(i)}
			switch {
			case (l.Command == "") == (l.URL == ""):
				errs = append(errs, p.problem(path, "names a server by command (and args) or by url, one of the two", "write command = \"npx\", args = [...], or url = \"https://...\""))
			case l.URL != "" && (len(l.Args) > 0 || l.SHA256 != ""):
				errs = append(errs, p.problem(path, "a remote server (url) has no args or sha256", "remove args and sha256"))
			case l.URL != "":
				if u, err := url.Parse(l.URL); err != nil || u.Host == "" {
					errs = append(errs, p.problem(path.Append("url"), "not a URL with a host: "+l.URL, "write its origin: https://mcp.example.com"))
				}
			case l.SHA256 != "":
				if d, ok := digestOf(l.SHA256); ok {
					list.ls[i].SHA256 = d
				} else {
					errs = append(errs, p.problem(path.Append("sha256"), fmt.Sprintf("%q is not a SHA-256 digest: 64 hexadecimal digits, alone or after sha256:", l.SHA256),
						`write the SHA-256 of the program's content, as 64 hexadecimal digits: sha256sum "$(command -v `+shellquote.Join(l.Command)+`)" prints them`))
				}
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// problem is a problem at path of the policy, positioned in its file.
func (p *Policy) problem(path partial.Path, msg, hint string) *diag.Error {
	e := &diag.Error{Code: diag.CodeInvalid, Source: p.Source, Path: path, Msg: msg, Hint: hint}
	e.Line, e.Column = p.locate(path)
	return e
}

// locate is the line and column of path in the policy's file; 0 for a
// source that is no file.
func (p *Policy) locate(path partial.Path) (int, int) {
	if p.doc == nil {
		return 0, 0
	}
	l, c, _ := p.doc.Locate(path)
	return l, c
}

// at writes where path is: file:line:column, or the source's name.
func (p *Policy) at(path partial.Path) string {
	if l, c := p.locate(path); l > 0 {
		return fmt.Sprintf("%s:%d:%d", p.Source, l, c)
	}
	return p.Source
}

// reason is the reason of a constraint: its own, else the policy's.
func (p *Policy) reason(own string) string {
	if own != "" {
		return own
	}
	return p.Reason
}

// matches reports whether l names the server srv, whose launch is id.
func (l Launch) matches(id Identity) bool {
	if l.URL != "" || id.URL != "" {
		if l.URL == "" || id.URL == "" {
			return false
		}
		a, errA := url.Parse(l.URL)
		b, errB := url.Parse(id.URL)
		return errA == nil && errB == nil && origin.Of(a) == origin.Of(b)
	}
	return l.launches(id) && (l.SHA256 == "" || l.digestIs(id.digest()))
}

// launches reports whether l names the program and the arguments of id,
// whatever the program's digest.
func (l Launch) launches(id Identity) bool {
	return l.URL == "" && id.URL == "" && id.Program != "" && id.Program == id.look(l.Command) && slices.Equal(l.Args, id.Args)
}

// digestIs reports whether l's digest is sum, "sha256:<hex>" as
// [exe.Sum] writes it ("" when the program could not be read).
func (l Launch) digestIs(sum string) bool {
	d, ok := digestOf(l.SHA256)
	return ok && sum != "" && d == sum
}

// digestOf is d, the SHA-256 of a program's content as a policy takes it
// (64 hexadecimal digits, in either case, alone or after "sha256:"),
// written as a pin writes it: "sha256:" and the digits in lower case. ok
// is false when d is no such digest.
func digestOf(d string) (_ string, ok bool) {
	const prefix = "sha256:"
	if len(d) >= len(prefix) && strings.EqualFold(d[:len(prefix)], prefix) {
		d = d[len(prefix):]
	}
	if len(d) != 64 || strings.Trim(d, "0123456789abcdefABCDEF") != "" {
		return "", false
	}
	return prefix + strings.ToLower(d), true
}

// File names a policy file; one that is Optional may be missing (the
// system path).
type File struct {
	Path     string
	Optional bool
}

// ReadAll reads the policy files, then the sources (a koanf provider
// made a [load.HostSource] by package koanflayer; its Kind and Above are
// not used), and returns every problem at once. workspace is the root
// of what the workspace may write ([load.Result.Area]), where no policy
// file may lie.
func ReadAll(ctx context.Context, files []File, sources []load.HostSource, workspace string) (Set, error) {
	var set Set
	var errs diag.Errors
	for _, f := range files {
		p, err := FromFile(ctx, f.Path, workspace, f.Optional)
		switch {
		case err != nil:
			errs = append(errs, diag.All(err)...)
		case p != nil:
			set = append(set, p)
		}
	}
	for _, src := range sources {
		label := "policy " + src.Name
		if src.Read == nil {
			errs = append(errs, &diag.Error{Code: diag.CodeUsage, Source: label, Msg: "has no Read"})
			continue
		}
		m, err := src.Read(ctx)
		if err != nil {
			errs = append(errs, &diag.Error{Code: diag.CodeRead, Source: label, Msg: "cannot read: " + err.Error(), Err: err})
			continue
		}
		p, err := FromMap(label, m)
		if err != nil {
			errs = append(errs, diag.All(err)...)
			continue
		}
		set = append(set, p)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return set, nil
}

// notBounds names a key of q that is no bound a policy takes; "" when
// there is none.
func notBounds(q config.Parameter) string {
	switch {
	case len(q.Type) > 0:
		return "type"
	case q.Required != nil:
		return "required"
	case q.Default != nil:
		return "default"
	case q.MultipleOf != nil:
		return "multiple_of"
	case q.Format != "":
		return "format"
	case q.UniqueItems != nil:
		return "unique_items"
	case q.Summary != "", q.Description != "":
		return "description"
	case len(q.Examples) > 0:
		return "examples"
	case q.Items != nil:
		return "items"
	case len(q.Properties) > 0:
		return "properties"
	case q.AllowDash:
		return "allow_dash"
	}
	return ""
}
