package policy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/exe"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// Kind is the kind of a policy layer, as explanations show it.
const Kind load.Kind = "policy"

// Set is the policy layers that apply. Their order changes nothing: each
// only narrows what the others allow.
type Set []*Policy

// Clamp is one value that a policy moved, or one server it left out.
type Clamp struct {
	// Key is the config's key that changed: tools.'*'.run.0 (a rule's
	// mode), tools.x.run (the implicit rule added after a list),
	// mcp_servers.fs (a server left out).
	Key partial.Path
	// From and To are the value the layers gave and the one the policy
	// leaves: "unattended" and "ask"; "enabled" and "left out".
	From, To string
	// Policy is the key of the policy's constraint (tools.'*'.run,
	// servers.allow), and Source, Line and Column where it was written.
	Policy       partial.Path
	Source       string
	Line, Column int
	// Reason is the policy's reason; Detail says what did not fit.
	Reason, Detail string
}

// At writes where the policy's constraint is: file:line:column, or the
// source's name.
func (c Clamp) At() string {
	if c.Line > 0 {
		return fmt.Sprintf("%s:%d:%d", c.Source, c.Line, c.Column)
	}
	return c.Source
}

// Problem is the clamp as a warning, or, when strict, an error: strict
// hosts refuse a config outside their policies rather than clamp it.
func (c Clamp) Problem(strict bool) *diag.Error {
	msg := fmt.Sprintf("%s: %s", c.Key, c.Detail)
	hint := "the policy " + c.Policy.String() + " (" + c.At() + ") decides this; change your config to fit it"
	if n := len(c.Policy); n > 0 && c.Policy[n-1] == "sha256" {
		// No config fits a digest: the program changed, or the policy is
		// out of date.
		hint = "the policy " + c.Policy.String() + " (" + c.At() + ") decides this; if the program's change is expected (an update), the policy needs its new digest"
	}
	if c.Reason != "" {
		msg += " (" + c.Reason + ")"
	}
	e := &diag.Error{Code: diag.CodeClamped, Severity: diag.SeverityWarning, Source: c.Source, Line: c.Line, Column: c.Column, Path: c.Policy, Msg: msg, Hint: hint}
	if strict {
		e.Severity = diag.SeverityError
		e.Msg = strings.Replace(e.Msg, " falls back to ", " is outside the policy, whose nearest allowed value is ", 1)
	}
	return e
}

// Identity is what a server launches, as a policy names servers.
type Identity struct {
	// Program is the program found in PATH, Args its arguments; URL a
	// remote server's.
	Program string
	Args    []string
	URL     string
	environ []string
	sum     func() string
}

// Equal reports whether id and o name the same launch. It lets go-cmp
// compare identities.
func (id Identity) Equal(o Identity) bool {
	return id.Program == o.Program && slices.Equal(id.Args, o.Args) && id.URL == o.URL
}

// digest is the SHA-256 of id's program, "sha256:<hex>"; "" when it
// cannot be read.
func (id Identity) digest() string {
	if id.sum == nil {
		return ""
	}
	return id.sum()
}

// look finds a policy's command as the server's is found.
func (id Identity) look(cmd string) string { return exe.LookPath(cmd, id.environ) }

// IdentityOf is the identity of srv, its program found in the PATH of
// environ (NAME=VALUE entries; nil is the process's).
func IdentityOf(srv config.MCPServer, environ []string) Identity {
	if srv.IsRemote() {
		return Identity{URL: srv.URL.Reveal()}
	}
	id := Identity{Program: exe.LookPath(srv.Command.Reveal(), environ), Args: secret.Values(srv.Args), environ: environ}
	id.sum = sync.OnceValue(func() string {
		s, err := exe.Sum(id.Program)
		if err != nil {
			return ""
		}
		return s
	})
	return id
}

// Clamp returns c within every policy of s, and what it moved: each
// rule's mode outside the modes allowed moves to the nearest allowed
// one ([Nearest]), an implicit { mode = "ask" } the policies do not allow
// is written out as a rule of the nearest mode, and an MCP server the
// policies do not allow is disabled. environ is the environment that
// servers' programs are found with. c itself is not changed.
func (s Set) Clamp(c config.Config, environ []string) (config.Config, []Clamp) {
	if len(s) == 0 {
		return c, nil
	}
	var out []Clamp
	c.Tools = maps.Clone(c.Tools)
	if c.Tools == nil {
		c.Tools = config.Tools{}
	}
	names := map[string]bool{config.EveryTool: true}
	for n := range c.Tools {
		names[n] = true
	}
	for _, p := range s {
		for n := range p.Tools {
			names[n] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		t, had := c.Tools[name]
		var inherited config.Tool
		if name != config.EveryTool {
			inherited = c.Tools[config.EveryTool]
		}
		run := s.allowed(name, func(t Tools) ([]string, bool) { return strs(t.Run), t.Run != nil }, "run")
		result := s.allowed(name, func(t Tools) ([]string, bool) { return strs(t.Result), t.Result != nil }, "result")
		// The policy namespace is clamped in a copy: the pointer may be
		// shared with what the config was finalized from.
		pol, inheritedPol := t.Policy.Get(), inherited.Policy.Get()
		var changed bool
		var cs []Clamp
		t.Run, pol.Run, changed, cs = clampPair(name, "run", t.Run, pol.Run, inherited.Run, inheritedPol.Run, run, runOrder)
		out = append(out, cs...)
		var changedR bool
		t.Result, pol.Result, changedR, cs = clampPair(name, "result", t.Result, pol.Result, inherited.Result, inheritedPol.Result, result, resultOrder)
		out = append(out, cs...)
		if (changed || changedR) && (t.Policy != nil || len(pol.Run) > 0 || len(pol.Result) > 0) {
			t.Policy = &pol
		}
		if had || changed || changedR {
			c.Tools[name] = t
		}
	}
	out = s.bounds(&c, out)
	c.MCPServers, out = s.servers(c.MCPServers, environ, out)
	return c, out
}

// Mode orders, least strict first: a mode outside a policy moves to the
// nearest stricter mode it allows, else to the strictest it allows.
var (
	runOrder    = []string{string(config.RunUnattended), string(config.RunEdit), string(config.RunAsk), string(config.RunSkip)}
	resultOrder = []string{string(config.ResultUnattended), string(config.ResultEdit), string(config.ResultAsk), string(config.ResultSkip)}
)

// Nearest is the mode of allowed nearest to mode in order (least strict
// first): the first allowed at or after it, else the last allowed before
// it; the strictest of order when nothing is allowed.
func Nearest(mode string, allowed, order []string) string {
	i := slices.Index(order, mode)
	for j := max(i, 0); j < len(order); j++ {
		if slices.Contains(allowed, order[j]) {
			return order[j]
		}
	}
	for j := i - 1; j >= 0; j-- {
		if slices.Contains(allowed, order[j]) {
			return order[j]
		}
	}
	return order[len(order)-1]
}

// allowedModes are the modes every policy allows a tool, and the
// constraints that say so.
type allowedModes struct {
	set   []string // nil: no policy constrains
	by    []constraint
	limit bool
}

// constraint is one policy's set of modes for one entry.
type constraint struct {
	p      *Policy
	key    partial.Path
	set    []string
	reason string
}

// allowed intersects the sets of modes of every policy for name and
// for '*'; field says which.
func (s Set) allowed(name string, get func(Tools) ([]string, bool), field string) allowedModes {
	var a allowedModes
	for _, p := range s {
		entries := []string{config.EveryTool}
		if name != config.EveryTool {
			entries = append(entries, name)
		}
		for _, entry := range entries {
			t, ok := p.Tools[entry]
			if !ok {
				continue
			}
			set, ok := get(t)
			if !ok {
				continue
			}
			a.by = append(a.by, constraint{p: p, key: partial.Path{"tools", entry, field}, set: set, reason: p.reason(t.Reason)})
			if !a.limit {
				a.set, a.limit = slices.Clone(set), true
				continue
			}
			a.set = slices.DeleteFunc(a.set, func(m string) bool { return !slices.Contains(set, m) })
		}
	}
	return a
}

// refusing is the first constraint that does not allow mode.
func (a allowedModes) refusing(mode string) constraint {
	for _, c := range a.by {
		if !slices.Contains(c.set, mode) {
			return c
		}
	}
	return a.by[len(a.by)-1]
}

// clampPair clamps a tool's run (or result) and policy.run (or
// policy.result), and writes out the implicit rule, or the inherited
// rules where they leave the policy, on the list that decides.
func clampPair[M config.Mode](name, field string, top, pol, inTop, inPol config.Rules[M], a allowedModes, order []string) (config.Rules[M], config.Rules[M], bool, []Clamp) {
	if !a.limit {
		return top, pol, false, nil
	}
	var out []Clamp
	changed := false
	top, ch, cs := clampList(partial.Path{"tools", name, field}, top, a, order)
	out, changed = append(out, cs...), changed || ch
	pol, ch, cs = clampList(partial.Path{"tools", name, "policy", field}, pol, a, order)
	out, changed = append(out, cs...), changed || ch
	// The list that decides: the tool's own, else what it inherits.
	switch {
	case len(pol) > 0:
		pol, ch, cs = implicit(partial.Path{"tools", name, "policy", field}, pol, a, order)
	case len(top) > 0:
		top, ch, cs = implicit(partial.Path{"tools", name, field}, top, a, order)
	default:
		inherited := inPol
		if len(inherited) == 0 {
			inherited = inTop
		}
		// The tool inherits: it needs a list of its own only where the
		// inherited one leaves what the policies allow it.
		key := partial.Path{"tools", name, field}
		own, ch1, cs1 := clampList(key, slices.Clone(inherited), a, order)
		own, ch2, cs2 := implicit(key, own, a, order)
		if !ch1 && !ch2 {
			return top, pol, changed, out
		}
		top, ch, cs = own, true, append(cs1, cs2...)
	}
	return top, pol, changed || ch, append(out, cs...)
}

// clampList moves each rule's mode outside a to the nearest one a allows.
func clampList[M config.Mode](key partial.Path, rs config.Rules[M], a allowedModes, order []string) (config.Rules[M], bool, []Clamp) {
	var out []Clamp
	cloned := false
	for i, r := range rs {
		to := Nearest(string(r.Mode), a.set, order)
		if to == string(r.Mode) {
			continue // allowed; or the strictest, where nothing is
		}
		if !cloned {
			rs, cloned = slices.Clone(rs), true
		}
		cl, cm := clampOf(key.Append(strconv.Itoa(i)), string(r.Mode), to, a)
		if r.Clamped != nil { // clamped before: keep what the layers gave
			cm.From = r.Clamped.From
		}
		rs[i].Mode, rs[i].Clamped = M(to), cm
		out = append(out, cl)
	}
	return rs, cloned, out
}

// implicit writes out, after a list whose rules may all fail to hold,
// the implicit { mode = "ask" } as a rule of the nearest mode a allows,
// where a does not allow ask.
func implicit[M config.Mode](key partial.Path, rs config.Rules[M], a allowedModes, order []string) (config.Rules[M], bool, []Clamp) {
	ask := string(config.RunAsk)
	if Nearest(ask, a.set, order) == ask || slices.ContainsFunc(rs, func(r config.Rule[M]) bool { return r.IsCatchAll() }) {
		return rs, false, nil
	}
	to := Nearest(ask, a.set, order)
	cl, cm := clampOf(key, ask, to, a)
	cl.Detail = "the implicit { mode = \"ask\" } after its rules falls back to " + strconv.Quote(to) + ": " + strings.TrimPrefix(cl.Detail, "\"ask\" falls back to "+strconv.Quote(to)+": ")
	cm.From = "ask (the implicit rule)"
	return append(slices.Clip(rs), config.Rule[M]{Mode: M(to), Clamped: cm}), true, []Clamp{cl}
}

// clampOf is the record of a mode moved from from to to.
func clampOf(key partial.Path, from, to string, a allowedModes) (Clamp, *config.Clamped) {
	by := a.refusing(from)
	line, col := by.p.locate(by.key)
	allowed := "no mode"
	if len(a.set) > 0 {
		allowed = strings.Join(quoted(a.set), ", ")
	}
	cl := Clamp{Key: key, From: from, To: to, Policy: by.key, Source: by.p.Source, Line: line, Column: col, Reason: by.reason,
		Detail: fmt.Sprintf("%q falls back to %q: the policies allow %s", from, to, allowed)}
	return cl, &config.Clamped{From: from, Key: by.key.String(), At: by.p.at(by.key), Allowed: slices.Clone(a.set), Reason: by.reason}
}

// servers disables each server that a deny list names or an allow list
// does not.
func (s Set) servers(in config.MCPServers, environ []string, out []Clamp) (config.MCPServers, []Clamp) {
	servers := maps.Clone(in)
	off := false
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		srv := servers[name]
		if !srv.IsEnabled() {
			continue
		}
		id := IdentityOf(srv, environ)
		why, ok := s.admits(srv, id)
		if ok {
			continue
		}
		srv.Enabled = &off
		servers[name] = srv
		why.Key = partial.Path{"mcp_servers", name}
		out = append(out, why)
	}
	return servers, out
}

// admits reports whether every policy lets a server of identity id
// start, and, when not, the clamp that leaves it out.
func (s Set) admits(srv config.MCPServer, id Identity) (Clamp, bool) {
	launch := srv.URL.String()
	if !srv.IsRemote() {
		launch = strings.Join(secret.Texts(append([]secret.String{srv.Command}, srv.Args...)), " ")
	}
	for _, p := range s {
		for i, l := range p.Servers.Deny {
			if l.matches(id) {
				key := partial.Path{"servers", "deny", strconv.Itoa(i)}
				line, col := p.locate(key)
				return Clamp{From: "enabled", To: "left out", Policy: key, Source: p.Source, Line: line, Column: col,
					Reason: p.reason(cmpOr(l.Reason, p.Servers.Reason)), Detail: "left out: its launch (" + launch + ") is in the policy's deny list"}, false
			}
		}
		if p.Servers.Allow == nil {
			continue
		}
		if slices.ContainsFunc(p.Servers.Allow, func(l Launch) bool { return l.matches(id) }) {
			continue
		}
		// An entry that names its program and arguments, but not the
		// program's digest, is the one to tell of.
		if i := slices.IndexFunc(p.Servers.Allow, func(l Launch) bool { return l.SHA256 != "" && l.launches(id) }); i >= 0 {
			l := p.Servers.Allow[i]
			key := partial.Path{"servers", "allow", strconv.Itoa(i), "sha256"}
			line, col := p.locate(key)
			policy := l.SHA256
			if d, ok := digestOf(l.SHA256); ok {
				policy = d
			}
			detail := "left out: its launch (" + launch + ") is in the policy's allow list but for its digest: the program " + id.Program
			if sum := id.digest(); sum != "" {
				detail += " is " + sum + ", not the policy's " + policy
			} else {
				detail += " cannot be read to compare it with the policy's " + policy
			}
			return Clamp{From: "enabled", To: "left out", Policy: key, Source: p.Source, Line: line, Column: col,
				Reason: p.reason(cmpOr(l.Reason, p.Servers.Reason)), Detail: detail}, false
		}
		key := partial.Path{"servers", "allow"}
		line, col := p.locate(key)
		return Clamp{From: "enabled", To: "left out", Policy: key, Source: p.Source, Line: line, Column: col,
			Reason: p.reason(p.Servers.Reason), Detail: "left out: its launch (" + launch + ") is not in the policy's allow list, which names servers by program, arguments and digest, or URL origin, never by their key"}, false
	}
	return Clamp{}, true
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func strs[M ~string](ms []M) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// Explain adds to ex what the policies did at its path: a step of kind
// [Kind] for each clamp of the path or below it, which wins.
func Explain(ex load.Explanation, clamps []Clamp) load.Explanation {
	for _, c := range clamps {
		if !c.Key.HasPrefix(ex.Path) && !ex.Path.HasPrefix(c.Key) {
			continue
		}
		for i := range ex.Steps {
			ex.Steps[i].Wins = false
		}
		action := c.Policy.String() + " clamps " + c.Key.String() + ": " + c.Detail
		if c.Reason != "" {
			action += " (" + c.Reason + ")"
		}
		ex.Steps = append(ex.Steps, load.Step{Kind: Kind, Name: c.Source, Line: c.Line, Column: c.Column, Action: action, Wins: true})
	}
	return ex
}

// AdmitsTool reports whether every policy lets the tool named name,
// whose source is source (mcp.<server>.<tool>, local.<tool>), be given
// to a model: no deny list matches it, and every allow list does (deny
// lists unite, allow lists intersect). When not, the clamp says which
// list left it out.
func (s Set) AdmitsTool(name, source string) (Clamp, bool) {
	for _, p := range s {
		for i, pat := range p.DenyTools {
			if config.Match(pat, name, source) {
				key := partial.Path{"deny_tools", strconv.Itoa(i)}
				line, col := p.locate(key)
				return Clamp{Key: partial.Path{"tools", name}, From: "given", To: "left out", Policy: key, Source: p.Source, Line: line, Column: col,
					Reason: p.Reason, Detail: fmt.Sprintf("left out: the policy's deny_tools %q matches it (%s)", pat, source)}, false
			}
		}
		if p.AllowTools != nil && !slices.ContainsFunc(p.AllowTools, func(pat string) bool { return config.Match(pat, name, source) }) {
			key := partial.Path{"allow_tools"}
			line, col := p.locate(key)
			return Clamp{Key: partial.Path{"tools", name}, From: "given", To: "left out", Policy: key, Source: p.Source, Line: line, Column: col,
				Reason: p.Reason, Detail: fmt.Sprintf("left out: no pattern of the policy's allow_tools matches it (%s)", source)}, false
		}
	}
	return Clamp{}, true
}
