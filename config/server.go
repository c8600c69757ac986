package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/origin"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/secret"
)

// validate checks one server at path p: it has a command or a url, not
// both and not neither, only the settings of its kind, a usable URL and
// headers, and positive timeouts.
func (s MCPServer) validate(p partial.Path) diag.Errors {
	var errs diag.Errors
	add := invalidAt(p, &errs)
	switch {
	case s.InProcess:
		for _, k := range append(append(s.localKeys(), s.remoteKeys()...), s.kindKeys()...) {
			add(k, k+" is for a server strata starts or reaches; the host serves this one in its own process (in_process)", "remove "+k)
		}
	case s.Command.Empty() && s.URL.Empty():
		add("", "an MCP server needs a command (a program started over stdio) or a url (a remote server)",
			`write command = "npx" and its args, or url = "https://example.com/mcp"`)
	case !s.Command.Empty() && !s.URL.Empty():
		add("url", "an MCP server has a command or a url, not both",
			"remove url to start the command, or command to connect to the url")
	case !s.Command.Empty():
		for _, k := range s.remoteKeys() {
			add(k, k+" is for a remote server (url); this one is started with a command", "remove "+k)
		}
	default:
		for _, k := range s.localKeys() {
			add(k, k+" is for a server strata starts (command); this one is remote (url)", "remove "+k)
		}
		if msg := checkURL(s.URL); msg != "" {
			add("url", msg, `write url = "https://example.com/mcp"`)
		} else if u, _ := url.Parse(s.URL.Reveal()); origin.Clear(u) && !s.AllowHTTP {
			host := u.Host
			if s.URL.IsSecret() {
				host = s.URL.String() // not the value, which may hold the host
			}
			add("url", fmt.Sprintf("plain http to %s, which is not this machine, sends the token, the headers and every message in clear", host),
				fmt.Sprintf("use https://, or set allow_http = true under [%s] if the network is yours", p))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		switch {
		case !validHeaderName(k):
			errs = append(errs, &diag.Error{Code: diag.CodeBadValue, Path: p.Append("headers", k), Msg: fmt.Sprintf("%q is not a valid HTTP header name", k), Hint: "a header name is letters, digits and !#$%&'*+-.^_`|~"})
		case !validHeaderValue(s.Headers[k].Reveal()):
			errs = append(errs, &diag.Error{Code: diag.CodeBadValue, Path: p.Append("headers", k), Msg: "the value holds a line break or another control character"})
		case strings.EqualFold(k, "Authorization") && s.BearerTokenEnvVar != "":
			errs = append(errs, &diag.Error{Code: diag.CodeInvalid, Path: p.Append("headers", k), Msg: "both headers.Authorization and bearer_token_env_var set the Authorization header", Hint: "keep one of them"})
		}
	}
	errs = append(errs, s.SignIn().validate(p.Append("oauth"), s)...)
	if s.BearerTokenEnvVar != "" && !validVarName(s.BearerTokenEnvVar) {
		add("bearer_token_env_var", fmt.Sprintf("%q is not a variable name", s.BearerTokenEnvVar), "write the name of the variable that holds the token, such as GITHUB_TOKEN")
	}
	for i, v := range s.EnvVars {
		if !validVarName(v) && v != "*" {
			errs = append(errs, &diag.Error{Code: diag.CodeBadValue, Path: p.Append("env_vars", fmt.Sprint(i)), Msg: fmt.Sprintf("%q is not a variable name", v), Hint: `name a variable, or write "*" for all of them`})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		if !validVarName(k) {
			add("env", fmt.Sprintf("%q is not a variable name", k), "")
		}
	}
	if s.Namespace != "" && !validNamespace(s.Namespace) {
		add("namespace", fmt.Sprintf("%q is not a namespace: it goes before the server's URIs as a scheme of its own", s.Namespace), `write letters, digits and - starting with a letter, such as namespace = "docs"`)
	}
	for _, k := range slices.Sorted(maps.Keys(s.PromptNames)) {
		if s.PromptNames[k] == "" {
			errs = append(errs, &diag.Error{Code: diag.CodeBadValue, Path: p.Append("prompt_names", k), Msg: "the name served is empty", Hint: "write the name to serve the prompt as, or leave it out with disabled_prompts"})
		}
	}
	if e := checkToolNames(s.ToolNames, p.Append("tool_names")); e != nil {
		errs = append(errs, e)
	}
	if s.StartupTimeoutSec < 0 {
		add("startup_timeout_sec", fmt.Sprintf("must be positive, found %v", s.StartupTimeoutSec), "leave it out for the default of the server's launch (10 seconds, 60 for a launcher such as npx, 300 while it installs)")
	}
	if s.ToolTimeoutSec <= 0 {
		add("tool_timeout_sec", fmt.Sprintf("must be positive, found %v", s.ToolTimeoutSec), "")
	}
	return errs
}

// invalidAt returns what adds to errs a problem of the key under p (p
// itself for ""), with its fix.
func invalidAt(p partial.Path, errs *diag.Errors) func(key, msg, hint string) {
	return func(key, msg, hint string) {
		at := p
		if key != "" {
			at = p.Append(key)
		}
		*errs = append(*errs, &diag.Error{Code: diag.CodeInvalid, Path: at, Msg: msg, Hint: hint})
	}
}

// validate checks the sign-in settings o of the server s, at p.
func (o OAuth) validate(p partial.Path, s MCPServer) diag.Errors {
	var errs diag.Errors
	add := invalidAt(p, &errs)
	if s.OAuth == nil || !s.Command.Empty() {
		return nil
	}
	switch o.Grant {
	case "", GrantAuthorizationCode:
	case GrantClientCredentials:
		if o.ClientID == "" {
			add("grant", "client_credentials needs a client registered beforehand", "write client_id, with client_secret_env_var or private_key_file")
		} else if o.ClientSecretEnvVar == "" && o.PrivateKeyFile == "" {
			add("grant", "client_credentials needs the client's secret or private key", "write client_secret_env_var or private_key_file")
		}
	default:
		add("grant", fmt.Sprintf("expected authorization_code or client_credentials, found %q", o.Grant), "")
	}
	if o.ClientSecretEnvVar != "" && !validVarName(o.ClientSecretEnvVar) {
		add("client_secret_env_var", fmt.Sprintf("%q is not a variable name", o.ClientSecretEnvVar), "write the name of the variable that holds the secret")
	}
	if o.ClientSecretEnvVar != "" && o.PrivateKeyFile != "" {
		add("private_key_file", "a client authenticates with a secret or a private key, not both", "keep client_secret_env_var or private_key_file")
	}
	if (o.ClientSecretEnvVar != "" || o.PrivateKeyFile != "") && o.ClientID == "" {
		add("client_id", "a secret or a private key needs the client_id it belongs to", "write client_id")
	}
	if o.ClientMetadataURL != "" {
		if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			add("client_metadata_url", fmt.Sprintf("a client ID metadata document is at an https URL with a path, found %q", o.ClientMetadataURL), `write client_metadata_url = "https://example.com/strata/client.json"`)
		}
	}
	if o.CallbackPort < 0 || o.CallbackPort > 65535 {
		add("callback_port", fmt.Sprintf("expected a port from 0 to 65535, found %d", o.CallbackPort), "")
	}
	if s.BearerTokenEnvVar != "" {
		add("", "oauth signs in to the server, and bearer_token_env_var gives it a token: they would both set Authorization", "keep one of them")
	}
	return errs
}

// validNamespace reports whether ns may go before a URI as its scheme,
// and come off again: a letter, then letters, digits and -.
func validNamespace(ns string) bool {
	for i, r := range ns {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '-'):
		default:
			return false
		}
	}
	return ns != ""
}

// remoteKeys are the settings of a remote server that s sets.
func (s MCPServer) remoteKeys() []string {
	var keys []string
	if len(s.Headers) > 0 {
		keys = append(keys, "headers")
	}
	if s.BearerTokenEnvVar != "" {
		keys = append(keys, "bearer_token_env_var")
	}
	if s.AllowHTTP {
		keys = append(keys, "allow_http")
	}
	if s.OAuth != nil {
		keys = append(keys, "oauth")
	}
	return keys
}

// kindKeys are the keys that make s a started or a remote server: its
// command and url, where set.
func (s MCPServer) kindKeys() []string {
	var keys []string
	if !s.Command.Empty() {
		keys = append(keys, "command")
	}
	if !s.URL.Empty() {
		keys = append(keys, "url")
	}
	return keys
}

// localKeys are the settings of a started server that s sets.
func (s MCPServer) localKeys() []string {
	var keys []string
	for _, k := range []struct {
		set bool
		key string
	}{
		{len(s.Args) > 0, "args"}, {len(s.Env) > 0, "env"}, {len(s.EnvVars) > 0, "env_vars"},
		{!s.Cwd.Empty(), "cwd"},
	} {
		if k.set {
			keys = append(keys, k.key)
		}
	}
	return keys
}

// checkURL returns what is wrong with a server URL, or "". It quotes the
// URL's text: a secret's reference, not its value.
func checkURL(s secret.String) string {
	u, err := url.Parse(s.Reveal())
	raw := s.String()
	switch {
	case err != nil:
		return fmt.Sprintf("not a URL: %q", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("expected an http:// or https:// URL, found %q", raw)
	case u.Hostname() == "": // a port alone (https://:8443) is no host
		return fmt.Sprintf("the URL %q has no host", raw)
	}
	return ""
}

// validVarName reports whether name can be an environment variable's name.
// validHeaderName reports whether name is an HTTP header name, a token of
// RFC 7230: what net/http sends (golang.org/x/net/http/httpguts's rule,
// which the tests hold this to; config links no net package).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// validHeaderValue reports whether v may be an HTTP header's value: no
// control character but a tab (httpguts's rule, as validHeaderName).
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

func validVarName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}
