package mcptest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// SignIn is an MCP server that needs a sign-in, and its authorization
// server, on two origins of 127.0.0.1: the server is the SDK's streamable
// HTTP handler behind its auth.RequireBearerToken, with its protected
// resource metadata (auth.ProtectedResourceMetadataHandler); the
// authorization server takes dynamic registrations, gives codes at once
// (the user approves), checks PKCE, the redirect URI and the resource,
// and issues access tokens and refresh tokens, rotating the refresh token
// at each refresh. Its tool echo answers "echo: <text>".
type SignIn struct {
	// URL is the MCP server's endpoint; Issuer the authorization server.
	URL, Issuer string
	// Scope is the scope the server requires.
	Scope string
	// WrongIssuer, when set, is the iss the authorization server puts in
	// its answer to the browser instead of its own: a mix-up attack.
	WrongIssuer string

	mu        sync.Mutex
	clients   map[string][]string // client_id -> redirect URIs
	codes     map[string]grant
	access    map[string]token
	refresh   map[string]grant
	issued    []string // every token issued, access and refresh
	refreshes int
	deadRT    bool     // refresh tokens are refused (invalid_grant)
	strays    []string // Authorization headers sent to other paths of the server's origin
}

type grant struct {
	client, redirect, challenge, resource, scope string
}

type token struct {
	scope   string
	expired bool
}

// NewSignIn starts the pair, stopped when the test ends.
func NewSignIn(t testing.TB) *SignIn {
	t.Helper()
	s := &SignIn{Scope: "tools", clients: map[string][]string{}, codes: map[string]grant{}, access: map[string]token{}, refresh: map[string]grant{}}

	as := http.NewServeMux()
	asrv := httptest.NewServer(as)
	t.Cleanup(asrv.Close)
	s.Issuer = asrv.URL
	as.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                         s.Issuer,
			"authorization_endpoint":                         s.Issuer + "/authorize",
			"token_endpoint":                                 s.Issuer + "/token",
			"registration_endpoint":                          s.Issuer + "/register",
			"response_types_supported":                       []string{"code"},
			"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported":               []string{"S256"},
			"token_endpoint_auth_methods_supported":          []string{"none"},
			"scopes_supported":                               []string{s.Scope, "offline_access"},
			"authorization_response_iss_parameter_supported": true,
		})
	})
	as.HandleFunc("POST /register", s.register)
	as.HandleFunc("GET /authorize", s.authorize)
	as.HandleFunc("POST /token", s.token)

	server := mcp.NewServer(&mcp.Implementation{Name: "signed", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo the text."}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	rs := http.NewServeMux()
	rsrv := httptest.NewServer(rs)
	t.Cleanup(rsrv.Close)
	s.URL = rsrv.URL + "/mcp"
	prm := rsrv.URL + "/.well-known/oauth-protected-resource/mcp"
	rs.Handle("GET /.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: s.URL, AuthorizationServers: []string{s.Issuer}, ScopesSupported: []string{s.Scope},
	}))
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{Stateless: true})
	rs.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.strays = append(s.strays, r.Header.Get("Authorization"))
		s.mu.Unlock()
		http.NotFound(w, r)
	})
	rs.Handle("/mcp", auth.RequireBearerToken(s.verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: prm, Scopes: []string{s.Scope}})(mcpHandler))
	return s
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, code, desc string) {
	writeJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}

func (s *SignIn) verify(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.access[tok]
	if !ok {
		return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
	}
	exp := time.Now().Add(time.Hour)
	if t.expired {
		exp = time.Now().Add(-time.Hour)
	}
	return &auth.TokenInfo{Scopes: strings.Fields(t.scope), Expiration: exp}, nil
}

func (s *SignIn) register(w http.ResponseWriter, r *http.Request) {
	var m oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil || len(m.RedirectURIs) == 0 {
		oauthError(w, "invalid_client_metadata", "redirect_uris are required")
		return
	}
	id := "client-" + rand.Text()
	s.mu.Lock()
	s.clients[id] = m.RedirectURIs
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs, "token_endpoint_auth_method": "none"})
}

func (s *SignIn) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	redirects, ok := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	switch {
	case !ok:
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	case !slices.Contains(redirects, q.Get("redirect_uri")):
		http.Error(w, "redirect_uri not registered", http.StatusBadRequest)
		return
	case q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		http.Error(w, "PKCE S256 is required", http.StatusBadRequest)
		return
	case q.Get("resource") != s.URL:
		http.Error(w, "resource is not this server's", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	s.mu.Lock()
	s.codes[code] = grant{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"), resource: q.Get("resource"), scope: q.Get("scope")}
	s.mu.Unlock()
	back, _ := url.Parse(q.Get("redirect_uri"))
	v := back.Query()
	v.Set("code", code)
	v.Set("state", q.Get("state"))
	v.Set("iss", s.Issuer)
	if s.WrongIssuer != "" {
		v.Set("iss", s.WrongIssuer)
	}
	back.RawQuery = v.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (s *SignIn) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, "invalid_request", err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var g grant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		c, ok := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case !ok:
			oauthError(w, "invalid_grant", "unknown code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			oauthError(w, "invalid_grant", "PKCE verifier does not match")
			return
		case r.PostForm.Get("redirect_uri") != c.redirect || r.PostForm.Get("client_id") != c.client:
			oauthError(w, "invalid_grant", "redirect_uri or client_id differ")
			return
		case r.PostForm.Get("resource") != c.resource:
			oauthError(w, "invalid_target", "resource differs")
			return
		}
		g = c
	case "refresh_token":
		c, ok := s.refresh[r.PostForm.Get("refresh_token")]
		if !ok || s.deadRT {
			oauthError(w, "invalid_grant", "refresh token not valid")
			return
		}
		delete(s.refresh, r.PostForm.Get("refresh_token")) // rotated
		s.refreshes++
		g = c
	default:
		oauthError(w, "unsupported_grant_type", "")
		return
	}
	at, rt := "at-"+rand.Text(), "rt-"+rand.Text()
	s.access[at] = token{scope: g.scope}
	s.refresh[rt] = g
	s.issued = append(s.issued, at, rt)
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt, "scope": g.scope})
}

// Expire makes every access token issued so far expired, as the server
// sees them (its 401 says so before their time).
func (s *SignIn) Expire() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, t := range s.access {
		t.expired = true
		s.access[k] = t
	}
}

// RefuseRefresh has the authorization server refuse every refresh token
// (invalid_grant): a sign-in that has expired for good.
func (s *SignIn) RefuseRefresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deadRT = true
}

// Refreshes returns how many refreshes the authorization server granted.
func (s *SignIn) Refreshes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshes
}

// Strays returns the Authorization headers of the requests to other
// paths of the server's origin than its endpoint and its metadata ("" for
// a request without one).
func (s *SignIn) Strays() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.strays)
}

// Issued returns every token issued so far, access and refresh.
func (s *SignIn) Issued() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.issued)
}
