package strata

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/signin"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/internal/userdir"
	"github.com/strata-config/strata/secret"
)

// SignIns keeps the user's sign-ins to the remote MCP servers that need
// one (MCP authorization; [Workspace.Login]): in the OS keychain, under
// the host's name, where one answers, else in file, a JSON file of mode
// 0600 (see [DefaultSignInFile]). A remote server without a token of its
// own is then sent the sign-in kept for its URL, and only it; the token is
// refreshed when it expires. Without this option no sign-in is sent or
// made.
//
// The keychain is asked only where one may answer: on macOS and Windows,
// and elsewhere when the host's environment names a D-Bus session bus
// (DBUS_SESSION_BUS_ADDRESS), where a desktop's Secret Service listens.
func SignIns(file string) Option {
	return option(func(s *settings) { s.signIns = file })
}

// DefaultSignInFile returns where an application called name keeps
// sign-ins without a keychain: tokens.json in $XDG_DATA_HOME/<name>, else
// in $HOME/.local/share/<name> (%LOCALAPPDATA%\<name> on Windows), read
// from environ; "" when none is set.
func DefaultSignInFile(name string, environ []string) string {
	return signin.DefaultFile(name, environ)
}

// signIns returns the workspace's store of sign-ins, or nil.
func (w *engine) signIns() *signin.Store {
	w.signInOnce.Do(func() {
		if w.s.signIns == "" {
			return
		}
		w.store = &signin.Store{Service: w.s.Name, File: w.s.signIns, Keychain: signin.KeychainLikely(w.environ)}
	})
	return w.store
}

// LoginOptions are how [Workspace.Login] reaches the user.
type LoginOptions struct {
	// Show is told the page the user is to open to sign in, before the
	// browser is tried: on a machine without one, the user opens it
	// elsewhere (the browser comes back to this machine's 127.0.0.1).
	Show func(url string)
	// Browser opens the page in the user's browser: $BROWSER, else
	// xdg-open (open on macOS).
	Browser bool
	// Wait bounds the wait for the browser to come back (0: 5 minutes).
	Wait time.Duration
}

// LoginResult is what [Workspace.Login] did.
type LoginResult struct {
	// SignedIn is false when the server answered without asking for a
	// sign-in: it needs none.
	SignedIn bool
	// Tools is how many tools the server listed once signed in.
	Tools int
	// Where says where the sign-in is kept: the OS keychain, or a file.
	Where string
	// Fallback, when not nil, is why no keychain answered, so that the
	// sign-in is kept in a file.
	Fallback error
}

// Login signs in to the remote server name of the config, in the user's
// browser, as the MCP authorization specification has a client do, and
// keeps the sign-in (see [SignIns]); then it lists the server's tools
// with it. The server's own answers say where to sign in: its 401, its
// protected resource metadata, its authorization server's metadata.
//
// Only a server of the layers applied signs in: one that a workspace
// nobody trusted defines is not there until the workspace is trusted.
func (w *engine) Login(ctx context.Context, name string, opts LoginOptions) (LoginResult, error) {
	srv, err := w.signInServer(name)
	if err != nil {
		return LoginResult{}, err
	}
	store := w.signIns()
	res, err := signin.ResourceOf(srv.URL)
	if err != nil {
		return LoginResult{}, err
	}
	environ := w.environ
	client := signin.NewClient(environ)
	l := &signin.Login{
		Store: store, Server: name, Resource: res, OAuth: srv.SignIn(), Client: client,
		Show: opts.Show, Wait: cmp.Or(opts.Wait, signin.DefaultWait),
	}
	if v := srv.SignIn().ClientSecretEnvVar; v != "" {
		sec := userdir.Getenv(environ)(v)
		if sec == "" {
			return LoginResult{}, w.signInErr(name, "oauth.client_secret_env_var", fmt.Sprintf("the variable %s, which oauth.client_secret_env_var names, is not set", v), "export it, or remove client_secret_env_var for a public client")
		}
		l.ClientSecret = signin.NewSecret(sec)
	}
	if opts.Browser {
		l.Open = signin.Browser(environ)
	}
	handler, stop, err := l.Start(ctx)
	if err != nil {
		return LoginResult{}, err
	}
	defer stop()
	spec := w.resolver().Server(name, srv, w.dir, w.root)
	r := spec.Remote
	r.Auth = handler
	// The wait for the user is part of the first request that the server
	// refuses.
	sess, err := mcpclient.Dial(ctx, r, spec.Startup+l.Wait)
	if err != nil {
		return LoginResult{}, loginFailed(name, err)
	}
	defer sess.Close()
	lctx, cancel := context.WithTimeout(ctx, spec.ToolTimeout+l.Wait)
	defer cancel()
	tools, _, err := sess.Tools(lctx, spec.Budget)
	if err != nil {
		return LoginResult{}, loginFailed(name, err)
	}
	out := LoginResult{SignedIn: l.SignedIn(), Tools: len(tools), Where: store.Where(), Fallback: store.Fallback()}
	return out, nil
}

// loginFailed is the error of a sign-in to the server name that failed.
func loginFailed(name string, err error) error {
	var ns *signin.NeedsSignIn
	if errors.As(err, &ns) {
		err = ns
	}
	code := diag.CodeServer
	if errors.As(err, new(*signin.NeedsSignIn)) {
		code = diag.CodeSignIn
	}
	return &diag.Error{Code: code, Msg: fmt.Sprintf("cannot sign in to %s: %v", name, err), Err: err}
}

// Logout forgets the sign-in to the server name (a server of the config,
// or a URL), wherever it is kept, and reports whether there was one.
func (w *engine) Logout(ctx context.Context, name string) (bool, error) {
	store := w.signIns()
	if store == nil {
		return false, errors.New("strata keeps no sign-ins here")
	}
	url := secret.Plain(name)
	if srv, ok := w.model.MCPServers[name]; ok {
		if !srv.IsRemote() {
			return false, w.signInErr(name, "", name+" is started with a command: only a remote server (url) signs in", "")
		}
		url = srv.URL
	} else if !strings.Contains(name, "://") {
		_, err := w.signInServer(name)
		return false, err
	}
	res, err := signin.ResourceOf(url)
	if err != nil {
		return false, err
	}
	return store.Delete(ctx, res)
}

// SignInStatus is the sign-in of one remote server, without a secret.
type SignInStatus struct {
	Name string
	// URL is the server's url, which prints as its reference where a
	// variable gave it.
	URL secret.String
	// Status says how the server is signed in to: "signed in (...)",
	// "not signed in", a token of its own, a machine's credentials.
	Status string
}

// SignInStatuses says, for each remote server of the config, in the
// order of their names, how strata signs in to it.
func (w *engine) SignInStatuses(ctx context.Context) []SignInStatus {
	var out []SignInStatus
	for _, name := range slices.Sorted(maps.Keys(w.model.MCPServers)) {
		srv := w.model.MCPServers[name]
		if !srv.IsRemote() {
			continue
		}
		out = append(out, SignInStatus{Name: name, URL: srv.URL, Status: w.signInStatus(ctx, srv)})
	}
	return out
}

// signInStatus says how strata signs in to the remote server srv.
func (w *engine) signInStatus(ctx context.Context, srv config.MCPServer) string {
	switch {
	case srv.BearerTokenEnvVar != "":
		return "a token of its own, from $" + srv.BearerTokenEnvVar
	case hasAuthorization(srv.Headers):
		return "a token of its own, in headers.Authorization"
	case srv.SignIn().Grant == config.GrantClientCredentials:
		return "a machine's credentials (client_credentials, as " + srv.SignIn().ClientID + "): no sign-in to keep"
	}
	store := w.signIns()
	if store == nil {
		return "no sign-ins kept here"
	}
	res, err := signin.ResourceOf(srv.URL)
	if err != nil {
		return err.Error()
	}
	rec, err := store.Load(ctx, res)
	switch {
	case errors.Is(err, signin.ErrNoSignIn):
		return "not signed in"
	case err != nil:
		return "the sign-in does not read: " + err.Error()
	}
	return rec.Status(time.Now())
}

func hasAuthorization(h map[string]secret.String) bool {
	for k := range h {
		if strings.EqualFold(k, "Authorization") {
			return true
		}
	}
	return false
}

// signInServer returns the server name, which is to sign in: a remote
// server of the layers applied, without a token of its own.
func (w *engine) signInServer(name string) (config.MCPServer, error) {
	if w.signIns() == nil {
		return config.MCPServer{}, errors.New("strata keeps no sign-ins here (the host gave no strata.SignIns)")
	}
	srv, ok := w.model.MCPServers[name]
	if !ok {
		hint := ""
		var names []string
		for n, s := range w.model.MCPServers {
			if s.IsRemote() {
				names = append(names, n)
			}
		}
		if s := suggest.Closest(name, names); s != "" {
			hint = "did you mean " + s + "?"
		}
		if w.untrustedFiles() {
			hint = strings.TrimPrefix(hint+"; the files of this workspace are not applied, nor signed in to, until you trust it (strata trust)", "; ")
		}
		return config.MCPServer{}, &diag.Error{Code: diag.CodeUnknownKey, Path: w.s.Mount.Append("mcp_servers", name), Msg: "no such MCP server in the layers applied", Hint: hint}
	}
	switch {
	case !srv.IsRemote():
		return srv, w.signInErr(name, "", "the server is started with a command: only a remote server (url) signs in", "")
	case srv.BearerTokenEnvVar != "":
		return srv, w.signInErr(name, "bearer_token_env_var", "the server is sent a token of its own, from $"+srv.BearerTokenEnvVar+": it does not sign in", "remove bearer_token_env_var to sign in instead")
	case hasAuthorization(srv.Headers):
		return srv, w.signInErr(name, "headers", "the server is sent a token of its own, in headers.Authorization: it does not sign in", "remove headers.Authorization to sign in instead")
	case srv.SignIn().Grant == config.GrantClientCredentials:
		return srv, w.signInErr(name, "oauth.grant", "the server is signed in to as a machine (client_credentials), at each run, without a browser: there is no sign-in to make", "")
	}
	return srv, nil
}

// signInErr is a problem of the sign-in settings of the server name.
func (w *engine) signInErr(name, key, msg, hint string) error {
	p := w.s.Mount.Append("mcp_servers", name)
	if key != "" {
		p = p.Append(strings.Split(key, ".")...)
	}
	return &diag.Error{Code: diag.CodeInvalid, Path: p, Msg: msg, Hint: hint}
}

// signInFix names the fix of a server that failed for want of a sign-in,
// or "".
func signInFix(err error) string {
	var ns *signin.NeedsSignIn
	if errors.As(err, &ns) {
		return "run strata login " + shellquote.Join(ns.Server)
	}
	return ""
}

// untrustedFiles reports whether files of the workspace were left out
// because nobody trusted it.
func (w *engine) untrustedFiles() bool {
	for _, e := range w.view.warnings {
		if e.Code == diag.CodeUntrusted {
			return true
		}
	}
	return false
}
