package discover

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/internal/cache"
	"github.com/strata-config/strata/internal/command"
	"github.com/strata-config/strata/internal/exe"
	"github.com/strata-config/strata/internal/launcher"
	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/procs"
	"github.com/strata-config/strata/internal/readfile"
	"github.com/strata-config/strata/internal/signin"
	"github.com/strata-config/strata/internal/untrusted"
	"github.com/strata-config/strata/internal/upstream"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/secret"
	"github.com/strata-config/strata/trust"
)

// mcpServers discovers the tools of the servers the config needs, all at
// once: from the cache when it has them (no server starts), otherwise by
// starting them. With Refresh, a server whose tools differ from the cached
// ones is reported.
func (s *session) mcpServers(c config.Config) {
	names := c.ServersInUse()
	if s.r.Servers != nil {
		keep := map[string]bool{}
		for _, name := range names {
			keep[s.r.Server(name, c.MCPServers[name], s.found.Dir, s.found.Root).ID()] = true
		}
		defer s.r.Servers.Retain(keep)
	}
	procs.Each(s.ctx, len(names), len(names), func(ctx context.Context, i int) {
		name := names[i]
		srv := c.MCPServers[name]
		s.relocated(name, srv)
		tools, known, err := s.mcpServer(ctx, name, srv, s.serverWanted(c, name))
		if errors.Is(err, errNotAsked) {
			s.mu.Lock()
			s.found.Failed[partial.Path{"mcp_servers", name}.String()] = true
			s.mu.Unlock()
			return
		}
		var refused *untrusted.Refused
		if errors.As(err, &refused) {
			at := partial.Path{"mcp_servers", name}
			if i := slices.Index(secret.Values(srv.Args), refused.Name); refused.What == untrusted.Argument && i >= 0 {
				at = at.Append("args", strconv.Itoa(i)) // the cause
			}
			s.leaveOut(partial.Path{"mcp_servers", name}, at, err)
			return
		}
		if err != nil {
			path := partial.Path{"mcp_servers", name}
			if known != nil {
				// Its names stay its own while it is down.
				s.mu.Lock()
				s.found.Known[name] = knownNames(*known)
				s.mu.Unlock()
			}
			se := &resolve.ServerError{Server: name, Msg: err.Error(), Err: err}
			var ue *upstream.Error
			if errors.As(err, &ue) {
				se.Msg, se.Fix, se.Stderr = ue.Msg, ue.Hint, ue.ServerStderr()
			}
			// The fix last, after what happened.
			e := &diag.Error{Code: serverCode(err), Path: path, Msg: se.Msg, Hint: se.Fix, Err: se}
			if srv.Optional {
				e.Source = "skipped"
				e.Msg += " (the server is optional: its tools are left out)"
				s.warn(e)
				s.mu.Lock()
				s.found.Failed[path.String()] = true
				s.mu.Unlock()
			} else {
				s.failed(path, e)
			}
			return
		}
		s.mu.Lock()
		s.found.Servers[name] = tools
		s.mu.Unlock()
	})
}

// errNotAsked is the error of a server a call does not need, whose tools
// are not in the cache: it is not started.
var errNotAsked = errors.New("not asked: a call of another tool")

// serverWanted reports whether discovery is for every tool, or for a
// tool whose source is the server name.
func (s *session) serverWanted(c config.Config, name string) bool {
	if s.only == nil {
		return true
	}
	for tool := range s.only {
		if t, ok := c.Tools[tool]; ok && t.Source.Kind == config.SourceMCP && t.Source.Server == name {
			return true
		}
	}
	return false
}

// inProcess is how to reach the host's in-process server name: through
// the transport the host registered. It starts no program, so no
// directory, environment, pin or trust applies; its tools are not cached
// (listing them costs the host nothing).
func (r *Resolver) inProcess(name string, srv config.MCPServer) upstream.Server {
	connect := r.InProcess[name]
	if connect == nil {
		connect = func(context.Context) (mcp.Transport, error) {
			return nil, fmt.Errorf("the host serves no in-process MCP server %s (in_process = true names one the host registers)", name)
		}
	}
	if r.MCPTransport != nil {
		connect = func(ctx context.Context) (mcp.Transport, error) { return r.MCPTransport(ctx, name, srv) }
	}
	return upstream.Server{
		Name:        name,
		Startup:     seconds(srv.StartupTimeoutSec, config.DefaultStartupTimeoutSec),
		ToolTimeout: seconds(srv.ToolTimeoutSec, config.DefaultToolTimeoutSec),
		Transport:   connect,
		InProcess:   true,
		Client:      r.Servers.Declared(),
		Budget:      r.Budget.WithDefaults(),
		Offer:       upstream.Naming{Namespace: srv.Namespace, DisabledPrompts: srv.DisabledPrompts, PromptNames: srv.PromptNames},
	}
}

// relocated warns, once a resolution, of the server name when it starts in
// a private directory (Private) and an argument of it names a path where
// it would have started, the root, which it then names no more: the
// server sees an empty directory, where the user meant the project.
func (s *session) relocated(name string, srv config.MCPServer) {
	if srv.IsRemote() || srv.InProcess || !srv.Cwd.Empty() {
		return
	}
	s.startsElsewhere("server", partial.Path{"mcp_servers", name, "args"}, secret.Values(srv.Args), secret.Texts(srv.Args))
}

// startsElsewhere warns of a program (what: "server", "tool") that starts
// in a private directory when an argument of its, values as run and texts
// as shown, names a path relative to the root, where it would have
// started: at that argument, args.<i> under at, with the fix.
func (s *session) startsElsewhere(what string, at partial.Path, values, texts []string) {
	root := s.found.Root
	if !s.r.Private || root == "" {
		return
	}
	i := untrusted.Relative(values, root)
	if i < 0 {
		return
	}
	arg := strconv.Quote(limits.Cut(texts[i], limits.Quote))
	why, fix := "which is not trusted", cmp.Or(s.r.TrustFix, "trust "+root+" to start it there")
	if s.r.Untrusted.IsZero() {
		// The home directory or /, which is trusted as no workspace,
		// and whose absolute path a program may be given.
		why, fix = "which is no workspace to trust", "name the directory by its absolute path, "+root
	}
	msg := fmt.Sprintf("the %s starts in an empty private directory, not in %s, %s: its argument %s names nothing of %s there", what, root, why, arg, root)
	s.warn(&diag.Error{Code: diag.CodeUntrusted, Path: at.Append(strconv.Itoa(i)), Msg: msg, Hint: fix})
}

// Server is how to reach the server name, configured as srv, for programs
// that start in dir of a workspace at root: with r.Private, a server
// without a cwd of its own starts in a new, empty directory made in dir
// for its session, and dir is what its cache key, identity and pin name.
func (r *Resolver) Server(name string, srv config.MCPServer, dir, root string) upstream.Server {
	if srv.InProcess {
		return r.inProcess(name, srv)
	}
	environ := r.Environ
	if environ == nil {
		environ = os.Environ()
	}
	// The program, found in PATH, is a secret when the config's command
	// was (a variable's value): it prints as its reference still.
	program := Program(srv, root, environ)
	cmd := srv.Command.Derive(func(string) string { return program })
	sdir, private := dir, r.Private
	switch cwd := srv.Cwd.Reveal(); {
	case cwd == "":
	case filepath.IsAbs(cwd):
		sdir, private = cwd, false
	default:
		sdir, private = filepath.Join(root, cwd), false
	}
	inherit := r.inherit(srv.EnvVars)
	set := make(map[string]string, len(srv.Env))
	for k, v := range srv.Env {
		set[k] = v.Reveal()
	}
	args := secret.Values(srv.Args)
	spec := upstream.Server{
		Name:        name,
		Command:     cmd,
		Args:        srv.Args,
		Env:         environment(procs.Env(environ, set, inherit), srv.Env, inherit),
		Dir:         sdir,
		Private:     private,
		Startup:     seconds(srv.StartupTimeoutSec, config.DefaultStartupTimeoutSec),
		ToolTimeout: seconds(srv.ToolTimeoutSec, config.DefaultToolTimeoutSec),
		Launch:      trust.Launch{Program: program, Args: args, Env: trust.LaunchEnv(set, inherit), Dir: sdir},
		Client:      r.Servers.Declared(),
		Untrusted:   r.Untrusted,
		Budget:      r.Budget.WithDefaults(),
		Offer:       upstream.Naming{Namespace: srv.Namespace, DisabledPrompts: srv.DisabledPrompts, PromptNames: srv.PromptNames},
	}
	if srv.IsRemote() {
		spec.Command, spec.Args, spec.Env, spec.Dir, spec.Private, spec.Launch = secret.String{}, nil, nil, "", false, trust.Launch{}
		spec.Remote = mcpclient.Remote{URL: srv.URL, Headers: srv.Headers, Environ: environ}
		if srv.BearerTokenEnvVar != "" {
			spec.TokenVar = srv.BearerTokenEnvVar
			if tok := lookupEnv(environ, srv.BearerTokenEnvVar); tok != "" {
				spec.Remote.BearerToken = secret.From(tok, "$"+srv.BearerTokenEnvVar)
			}
		}
		spec.Remote.AllowHTTP = srv.AllowHTTP
		spec.Remote.Auth, spec.SignInErr = r.signIn(name, srv, environ)
	}
	if pin, ok := r.Pins[partial.Path{"mcp_servers", name}.String()]; ok {
		spec.Pin = &pin
	}
	switch {
	case r.MCPTransport != nil:
		spec.Transport = func(ctx context.Context) (mcp.Transport, error) { return r.MCPTransport(ctx, name, srv) }
	case spec.Refused() != nil:
		// Not started, so not cached: its key would read the
		// workspace's files (a script, npx's packages).
	case srv.IsRemote():
		if r.Cache != nil && r.Cache.Dir != "" {
			// A remote server is keyed by where it is and what is sent to
			// it; the token counts by its hash, so the cache holds no
			// secret.
			key := cache.Key{Protocol: "mcp-remote", Path: srv.URL.Reveal()}
			for _, h := range slices.Sorted(maps.Keys(srv.Headers)) {
				key.Env = append(key.Env, h+"="+srv.Headers[h].Reveal())
			}
			if !spec.Remote.BearerToken.Empty() {
				sum := sha256.Sum256([]byte(spec.Remote.BearerToken.Reveal()))
				key.SHA256 = hex.EncodeToString(sum[:])
			}
			spec.Key = &key
		}
	default:
		key, err := r.Cache.Key(program)
		if err != nil {
			break
		}
		key.Protocol = string(resolve.ExecMCP)
		key.Argv = append([]string{srv.Command.Reveal()}, args...)
		key.Env = secret.Values(spec.Env)
		key.Dir = spec.Dir
		key.AddScript(program, args, spec.Dir)
		key.AddPackage(program, args, spec.Dir, key.Env)
		spec.Key = &key
	}
	if l, ok := launcher.Of(program, args, spec.Dir, secret.Values(spec.Env)); ok && !srv.IsRemote() && r.MCPTransport == nil {
		spec.Launcher = &l
		known := false
		if spec.Key != nil && r.Cache != nil {
			_, _, known = r.Cache.Entry(*spec.Key)
		}
		spec.Installs = l.WillInstall(known)
		if srv.StartupTimeoutSec == 0 { // no layer set it: its launch's
			spec.Startup = seconds(config.LauncherStartupTimeoutSec, 0)
			if spec.Installs {
				spec.Startup = seconds(config.InstallStartupTimeoutSec, 0)
			}
		}
	}
	if r.Setting != nil {
		spec.Setting = func(key, value string) string { return r.Setting(name, key, value) }
	}
	if spec.Key != nil && spec.Budget != (mcpclient.Budget{}).WithDefaults() {
		// A list is cut by the budget it was listed within.
		spec.Key.Budget = fmt.Sprintf("tools=%d bytes=%d", spec.Budget.Tools, spec.Budget.Bytes)
	}
	if spec.Key != nil && !spec.Client.IsZero() {
		// A server may list other tools to a client that can answer its
		// requests (sampling, elicitation): they are cached apart.
		b, _ := json.Marshal(spec.Client)
		spec.Key.Client = string(b)
	}
	return spec
}

// Program is the program the server srv of a workspace at root starts,
// found in environ's PATH: what a launch runs, and what to watch.
func Program(srv config.MCPServer, root string, environ []string) string {
	return exe.LookPath(command.Absolute(srv.Command.Reveal(), root), environ)
}

// environment is the whole environment env of a server: a variable the
// config sets is the config's value (a secret when it came from a
// variable), one it inherits by name (env_vars) a secret of the host's
// ($NAME), the base set every program gets plain text.
func environment(env []string, set map[string]secret.String, inherit []string) []secret.String {
	out := make([]secret.String, len(env))
	for i, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		v, ok := set[name]
		switch {
		case ok && v.Reveal() == value:
			out[i] = v.Derive(func(string) string { return kv })
		case slices.Contains(inherit, name), slices.Contains(inherit, "*"):
			// Inherited from the host: its value is the host's, and
			// prints as the variable that gave it.
			out[i] = secret.From(kv, "$"+name)
		default:
			out[i] = secret.Plain(kv)
		}
	}
	return out
}

// signIn returns the sign-in handler of the remote server name, or nil
// for a server that has a token of its own (bearer_token_env_var, an
// Authorization header) or when the resolver keeps no sign-ins; and why
// the sign-in of a machine cannot be made (its secret's variable unset,
// its key file unreadable), which the server's start reports.
func (r *Resolver) signIn(name string, srv config.MCPServer, environ []string) (auth.OAuthHandler, error) {
	if srv.BearerTokenEnvVar != "" {
		return nil, nil
	}
	for k := range srv.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil, nil
		}
	}
	client := signin.NewClient(environ)
	if o := srv.SignIn(); o.Grant == config.GrantClientCredentials {
		var key *ecdsa.PrivateKey
		secret := lookupEnv(environ, o.ClientSecretEnvVar)
		switch {
		case o.PrivateKeyFile != "" && r.Untrusted.Holds(o.PrivateKeyFile):
			// Where a file lies decides what it is: a key in the
			// workspace nobody trusted is its content, never read.
			return nil, r.Untrusted.Refuse(untrusted.KeyFile, o.PrivateKeyFile)
		case o.PrivateKeyFile != "":
			b, err := readfile.Regular(context.Background(), o.PrivateKeyFile, 64<<10, "the private key")
			if err == nil {
				key, err = signin.ParseKey(b)
			}
			if err != nil {
				return nil, fmt.Errorf("the private key of its oauth.private_key_file %s: %w", o.PrivateKeyFile, err)
			}
		case secret == "":
			return nil, fmt.Errorf("the variable %s, which oauth.client_secret_env_var names, is not set", o.ClientSecretEnvVar)
		}
		return signin.Machine(o.ClientID, signin.NewSecret(secret), key, o.Scopes, client)
	}
	if r.SignIns == nil {
		return nil, nil
	}
	res, err := signin.Resource(srv.URL.Reveal())
	if err != nil {
		return nil, err
	}
	return &signin.Handler{Store: r.SignIns, Server: name, Resource: res, Client: client}, nil
}

// lookupEnv returns the value of the variable name in environ.
func lookupEnv(environ []string, name string) string {
	v := ""
	for _, kv := range environ {
		if val, ok := strings.CutPrefix(kv, name+"="); ok {
			v = val
		}
	}
	return v
}

func seconds(s, def float64) time.Duration {
	if s <= 0 {
		s = def
	}
	return time.Duration(s * float64(time.Second))
}

// mcpServer returns the tools of one server, by name; when the server
// fails, the error and what the cache held for it, if anything.
//
// Cached tools are used as they are, with no server reached, but for a
// remote server that gave an identity (seed 002's server/identity) with
// them: reaching it costs no process, so it is asked who it is, and its
// tools are listed again only when it says it changed.
//
// A server a call does not need (not wanted) gives what the cache holds
// for it, and is not started: errNotAsked.
func (s *session) mcpServer(ctx context.Context, name string, srv config.MCPServer, wanted bool) (map[string]resolve.Discovered, *upstream.Answer, error) {
	spec := s.r.Server(name, srv, s.found.Dir, s.found.Root)
	if err := spec.Refused(); err != nil {
		return nil, nil, err
	}
	known := upstream.Cached(s.r.Cache, spec)
	origin := resolve.Origin{Program: spec.CommandLine()}
	if !wanted {
		if known == nil {
			return nil, nil, errNotAsked
		}
		origin.Cache, origin.Written, _ = s.r.Cache.Entry(*spec.Key)
		s.origin(task{path: partial.Path{"mcp_servers", name}}, origin)
		s.cut(name, known.Cut)
		return s.toolsOf(name, *known), nil, nil
	}
	if known != nil && !s.r.Refresh {
		origin.Cache, origin.Written, _ = s.r.Cache.Entry(*spec.Key)
		s.origin(task{path: partial.Path{"mcp_servers", name}}, origin)
		if spec.Remote.URL.Empty() || known.Identity == nil || s.r.Offline {
			s.cut(name, known.Cut)
			return s.toolsOf(name, *known), nil, nil
		}
		a, _, err := s.r.Servers.Tools(ctx, spec, known)
		if err != nil {
			s.warn(&diag.Error{Code: diag.CodeServer, Source: "changed", Path: partial.Path{"mcp_servers", name}, Msg: "cannot ask the server whether its tools changed (" + err.Error() + "); its cached tools are used", Err: err})
			s.cut(name, known.Cut)
			return s.toolsOf(name, *known), nil, nil
		}
		s.keep(spec, name, known, a)
		s.cut(name, a.Cut)
		return s.toolsOf(name, a), nil, nil
	}
	if s.r.Offline {
		return nil, known, fmt.Errorf("its tools are not in the cache, and offline mode starts no server")
	}
	s.origin(task{path: partial.Path{"mcp_servers", name}}, origin)
	if s.r.Progress != nil {
		done := s.r.Progress(spec.Waiting())
		defer done()
	}
	a, started, err := s.r.Servers.Tools(ctx, spec, nil)
	if err != nil {
		return nil, known, err
	}
	if started && spec.Transport == nil {
		s.started.Add(1)
	}
	s.keep(spec, name, known, a)
	s.cut(name, a.Cut)
	return s.toolsOf(name, a), nil, nil
}

// cut warns that the tool list of the server name went past its budget,
// and says what was kept; a nil cut says nothing.
func (s *session) cut(name string, cut *mcpclient.Cut) {
	if cut == nil {
		return
	}
	bound, setting := diag.Counted(int(cut.Bound), "tool"), "ServerTools"
	if cut.By == "bytes" {
		bound, setting = fmt.Sprintf("%d MiB", cut.Bound>>20), "ServerListing"
		if cut.Bound%(1<<20) != 0 {
			bound = diag.Counted(int(cut.Bound), "byte")
		}
	}
	s.warn(&diag.Error{
		Code: diag.CodeLimit,
		Path: partial.Path{"mcp_servers", name},
		Msg:  fmt.Sprintf("the server's tool list goes past %s: strata keeps its first %s (%.1f MiB) and leaves out the rest", bound, diag.Counted(cut.Kept, "tool"), float64(cut.Bytes)/(1<<20)),
		Hint: "a host raises the bound with codec.Limits." + setting,
	})
}

// keep caches a server's answer a, where known was cached before, and
// says so when its tools changed. A server run through npx is also cached
// under the key of what npx installed for it (the first run installs it).
func (s *session) keep(spec upstream.Server, name string, known *upstream.Answer, a upstream.Answer) {
	if known != nil && !upstream.SameTools(*known, a) {
		s.warn(&diag.Error{Code: diag.CodeChanged, Source: "changed", Path: partial.Path{"mcp_servers", name}, Msg: "the server's tools differ from those cached; the cache now holds the new ones"})
	}
	if spec.Key == nil {
		return
	}
	answer, err := json.Marshal(a)
	if err != nil {
		return
	}
	keys := []cache.Key{*spec.Key}
	if after := *spec.Key; after.AddPackage(spec.Command.Reveal(), secret.Values(spec.Args), spec.Dir, secret.Values(spec.Env)) {
		keys = append(keys, after)
	}
	for _, k := range keys {
		s.write(cacheWrite{key: k, answer: answer})
	}
}

// toolsOf returns the tools of a, the answer of server, by name: those
// whose names strata takes (see refused).
func (s *session) toolsOf(server string, a upstream.Answer) map[string]resolve.Discovered {
	out := make(map[string]resolve.Discovered, len(a.Tools))
	listed := make(map[string]int, len(a.Tools))
	for _, t := range a.Tools {
		listed[t.Name]++
	}
	var twice []string
	for _, t := range a.Tools {
		if !export.Strata.Allows(t.Name) {
			continue
		}
		// A name listed twice: which of its definitions a call would meet
		// is the server's secret, so the name is nobody's.
		switch n := listed[t.Name]; {
		case n > 1:
			twice = append(twice, t.Name)
			listed[t.Name] = -1
			continue
		case n < 0:
			continue
		}
		// The tool's texts as the server listed it, shared (see
		// mcpclient.ToolOf): a server's tools are held once.
		d := resolve.Discovered{Name: t.Name, Title: t.Title, Description: t.Description, Upstream: t.Raw}
		if t.InputSchema != nil {
			d.InputSchema, _ = resolve.ParseSchema(t.InputSchema) // JSON the tokenizer read
		} else {
			d.InputSchema = resolve.MustSchema(`{"type":"object"}`)
		}
		if t.OutputSchema != nil {
			d.OutputSchema, _ = resolve.ParseSchema(t.OutputSchema)
		}
		d.Annotations = t.Annotations
		out[t.Name] = d
	}
	s.refused(server, a)
	if len(twice) > 0 {
		shown := twice[:min(len(twice), maxBadNames)]
		if len(twice) > maxBadNames {
			shown = append(slices.Clone(shown), fmt.Sprintf("%d more", len(twice)-maxBadNames))
		}
		s.warn(&diag.Error{Code: diag.CodeLeftOut, Source: "skipped", Path: partial.Path{"mcp_servers", server},
			Msg: fmt.Sprintf("the server lists %s more than once, with definitions that may differ; left out", strings.Join(shown, ", "))})
	}
	return out
}

// knownNames returns the names of the tools of a, a server's answer on
// record, that strata takes.
func knownNames(a upstream.Answer) []string {
	names := []string{}
	for _, t := range a.Tools {
		if export.Strata.Allows(t.Name) {
			names = append(names, t.Name)
		}
	}
	return names
}

// maxBadNames is how many refused names a warning quotes.
const maxBadNames = 3

// refused warns once of the tools of a, the answer of server, whose names
// strata does not take: a name is data the server sent, and one that would
// not print as itself (an escape sequence, a bidirectional override)
// leaves its tool out.
func (s *session) refused(server string, a upstream.Answer) {
	var bad []string
	for _, t := range a.Tools {
		if !export.Strata.Allows(t.Name) {
			bad = append(bad, limits.CutQuoted(strconv.Quote(t.Name), limits.Quote))
		}
	}
	if len(bad) == 0 {
		return
	}
	msg := "a tool is left out: its name " + bad[0] + " is not one strata takes"
	if len(bad) > 1 {
		shown := bad[:min(len(bad), maxBadNames)]
		if len(bad) > maxBadNames {
			shown = append(slices.Clone(shown), fmt.Sprintf("%d more", len(bad)-maxBadNames))
		}
		msg = fmt.Sprintf("%d tools are left out: their names (%s) are not ones strata takes", len(bad), strings.Join(shown, ", "))
	}
	s.warn(&diag.Error{Code: diag.CodeLeftOut, Source: "skipped", Path: partial.Path{"mcp_servers", server}, Msg: msg, Hint: export.Strata.NameRule()})
}

// serverCode is the code of a server that did not start or list its
// tools because of err: a changed pin or an untrusted launch says so,
// anything else is the server's.
func serverCode(err error) diag.Code {
	var r *untrusted.Refused
	switch {
	case errors.Is(err, diag.CodePinChanged):
		return diag.CodePinChanged
	case errors.As(err, &r):
		return diag.CodeUntrusted
	case errors.As(err, new(*signin.NeedsSignIn)):
		return diag.CodeSignIn
	}
	return diag.CodeServer
}
