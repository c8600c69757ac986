// Package signin signs strata in to the remote MCP servers that need it,
// as the MCP authorization specification has a client do, and keeps what
// the sign-in gave: discovery from the server's 401 and its metadata
// documents, the authorization code grant with PKCE in the user's
// browser, a loopback callback on 127.0.0.1, client ID metadata
// documents, dynamic registration or a client registered beforehand,
// scopes and step-up, the issuer and resource checks (the MCP Go SDK's
// auth and oauthex packages do these), refresh tokens used and rotated,
// and the client credentials grant for machines.
//
// A token is a secret of the server it was issued for: it is kept in the
// OS keychain, else in a file of mode 0600 under the user's data directory
// ([Store]); it is a [Secret], whose text is never its value, and it is
// sent only to the URL it was issued for (the handlers of this package
// are given to mcpclient.Dial for that server alone, which keeps every
// request to the server's origin).
package signin

import (
	"errors"
	"fmt"
	"github.com/strata-config/strata/secret"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"
	"golang.org/x/oauth2"
)

// Secret is a credential (an access or refresh token, a client secret):
// however it is printed, logged or encoded, its text is "<secret>", never
// its value; only [Secret.Value] gives that, for the one request that
// sends it.
type Secret struct{ v string }

// NewSecret returns v as a Secret.
func NewSecret(v string) Secret { return Secret{v} }

const hidden = "<secret>"

// Value returns the credential itself.
func (s Secret) Value() string { return s.v }

// IsZero reports whether there is no credential.
func (s Secret) IsZero() bool { return s.v == "" }

func (s Secret) String() string   { return hidden }
func (s Secret) GoString() string { return hidden }

// Format writes "<secret>" whatever the verb: %d or %x would otherwise
// print the value's bytes.
func (s Secret) Format(f fmt.State, _ rune) { io.WriteString(f, hidden) }

// MarshalJSON and MarshalText write "<secret>": a Secret in a value that
// is encoded for output stays hidden. The store writes the value through
// a form of its own.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + hidden + `"`), nil }
func (s Secret) MarshalText() ([]byte, error) { return []byte(hidden), nil }

// Record is what a sign-in to one server gave, and what refreshes it.
type Record struct {
	// Resource is the URL of the server the token was issued for, the only
	// place it is sent (see [Resource]).
	Resource string
	// Grant is how the token was obtained (config.GrantAuthorizationCode).
	Grant string
	// TokenURL, AuthStyle, ClientID and ClientSecret refresh the token.
	TokenURL     string
	AuthStyle    oauth2.AuthStyle
	ClientID     string
	ClientSecret Secret
	// Scopes are the scopes granted, or asked for when the authorization
	// server did not say.
	Scopes []string
	// Wanted are scopes a server asked for beyond Scopes (its 403 with
	// insufficient_scope), asked for at the next sign-in.
	Wanted []string
	// Access and Refresh are the tokens; Expiry is when Access expires
	// (zero: not said).
	Access    Secret
	Refresh   Secret
	TokenType string
	Expiry    time.Time
}

// token returns the record's tokens for oauth2.
func (r *Record) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.Access.v, RefreshToken: r.Refresh.v, TokenType: r.TokenType, Expiry: r.Expiry}
}

// setToken takes the tokens of t, keeping the refresh token when the
// authorization server did not rotate it.
func (r *Record) setToken(t *oauth2.Token) {
	r.Access = Secret{t.AccessToken}
	if t.RefreshToken != "" {
		r.Refresh = Secret{t.RefreshToken}
	}
	r.TokenType, r.Expiry = t.TokenType, t.Expiry
	if s, ok := t.Extra("scope").(string); ok && s != "" {
		r.Scopes = strings.Fields(s)
	}
	r.Wanted = slices.DeleteFunc(r.Wanted, func(s string) bool { return slices.Contains(r.Scopes, s) })
}

// config returns what refreshes the record's token.
func (r *Record) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: r.ClientID, ClientSecret: r.ClientSecret.v,
		Endpoint: oauth2.Endpoint{TokenURL: r.TokenURL, AuthStyle: r.AuthStyle},
		Scopes:   r.Scopes,
	}
}

// Status says, without a secret, what the record holds: for listings and
// strata doctor.
func (r *Record) Status(now time.Time) string {
	var b strings.Builder
	b.WriteString("signed in")
	if len(r.Scopes) > 0 {
		fmt.Fprintf(&b, " (scopes %s)", strings.Join(r.Scopes, " "))
	}
	switch {
	case r.Expiry.IsZero():
	case r.Expiry.After(now):
		fmt.Fprintf(&b, ", token valid until %s", r.Expiry.Local().Format("2006-01-02 15:04"))
	case !r.Refresh.IsZero():
		b.WriteString(", token expired (refreshed at the next use)")
	default:
		b.WriteString(", token expired and cannot be refreshed: sign in again")
	}
	if len(r.Wanted) > 0 {
		fmt.Fprintf(&b, "; the server asked for more (%s): sign in again", strings.Join(r.Wanted, " "))
	}
	return b.String()
}

// ResourceOf is [Resource] of a server's url as the config holds it,
// which may be a secret (a variable's value): a problem names the url
// as it prints, its reference.
func ResourceOf(u secret.String) (string, error) {
	res, err := Resource(u.Reveal())
	if err != nil {
		return "", fmt.Errorf("not an http:// or https:// URL: %v", u)
	}
	return res, nil
}

// Resource returns the canonical form of a server's URL, under which its
// tokens are kept: scheme and host in lower case, the default port
// dropped, no fragment, and no slash at the end of the path. Two spellings
// of one server share its tokens; two servers of one origin do not.
func Resource(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		// A port alone (http://:80) is no host either.
		return "", fmt.Errorf("not an http:// or https:// URL: %q", raw)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	if p := u.Port(); p == "443" && u.Scheme == "https" || p == "80" && u.Scheme == "http" {
		u.Host = u.Hostname()
		if strings.Contains(u.Host, ":") {
			u.Host = "[" + u.Host + "]"
		}
	}
	u.Fragment, u.RawFragment, u.User = "", "", nil
	ep := strings.TrimRight(u.EscapedPath(), "/")
	p, err := url.PathUnescape(ep)
	if err != nil {
		return "", fmt.Errorf("not an http:// or https:// URL: %q", raw)
	}
	u.Path, u.RawPath = p, ep
	return u.String(), nil
}

// NeedsSignIn is the error of a server that needs a sign-in strata does
// not have (none, or one that expired and cannot be refreshed), or one
// with more scopes than it has: only the user can sign in, with strata
// login, which it names.
type NeedsSignIn struct {
	Server string // the server's name in the config
	// Scopes the server asked for, when it said (a 403 for insufficient
	// scope: step-up).
	Scopes []string
	// Why says what happened: "no sign-in", "the sign-in expired", ...
	Why string
}

func (e *NeedsSignIn) Error() string {
	msg := fmt.Sprintf("the server %s needs a sign-in", e.Server)
	if e.Why != "" {
		msg += " (" + e.Why + ")"
	}
	if len(e.Scopes) > 0 {
		msg = fmt.Sprintf("the server %s needs a sign-in with more permissions (scopes %s)", e.Server, strings.Join(e.Scopes, " "))
	}
	return msg + ": run strata login " + shellquote.Join(e.Server)
}

// ErrNoSignIn is what [Store.Load] wraps when the store holds no sign-in
// for a server.
var ErrNoSignIn = errors.New("not signed in")
