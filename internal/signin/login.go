package signin

import (
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/limits"
)

// Login is a sign-in to one server with the user's browser (strata
// login): the authorization code grant with PKCE, as the SDK's
// auth.AuthorizationCodeHandler runs it, strata registered as a client by
// its client ID metadata document (when configured and the authorization
// server takes one), else as the client configured (ClientID), else by
// dynamic registration. The browser comes back to a listener on
// 127.0.0.1 alone, which takes only the answer that carries the
// request's state. What the sign-in gives is kept in Store.
type Login struct {
	Store  *Store
	Server string // the server's name, for messages
	// Resource is the server's [Resource].
	Resource string
	OAuth    config.OAuth
	// ClientSecret is the secret of OAuth.ClientID, if it has one.
	ClientSecret Secret
	// Client makes the requests of discovery, registration and tokens
	// (see [NewClient]).
	Client *http.Client
	// Show is told the URL the user is to open, before Open is tried:
	// on a machine without a browser, the user opens it elsewhere.
	Show func(url string)
	// Open opens the URL in the user's browser (see [Browser]); nil opens
	// none.
	Open func(ctx context.Context, url string) error
	// Wait bounds the wait for the browser to come back; 0 is
	// [DefaultWait].
	Wait time.Duration

	mu       sync.Mutex
	signedIn bool
	asked    int
	ln       net.Listener
	srv      *http.Server
	answers  chan answer
	state    string
}

// DefaultWait is how long strata login waits for the browser to come
// back: time to sign in, with a second factor, and not forever.
const DefaultWait = 5 * time.Minute

// MaxAsks bounds the sign-ins one strata login asks for: the first, and
// step-up for scopes the server asks for beyond it, twice. A server that
// keeps asking for scopes it is not given would have the user sign in
// forever.
const MaxAsks = 3

type answer struct {
	res *auth.AuthorizationResult
	err error
}

// Start listens for the browser's return on 127.0.0.1 and returns the
// handler for mcpclient.Dial, and what ends the listener. Every request
// the handler refuses (401) starts the sign-in, in the browser.
func (l *Login) Start(ctx context.Context) (auth.OAuthHandler, func(), error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(l.OAuth.CallbackPort)))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot listen on 127.0.0.1:%d for the browser's return: %w", l.OAuth.CallbackPort, err)
	}
	l.ln = ln
	l.answers = make(chan answer, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", l.callback)
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go l.srv.Serve(ln)
	stop := func() { l.srv.Close() }

	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	old, _ := l.Store.Load(ctx, l.Resource)
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: l.fetch,
		RequestRefreshToken:      true,
		Client:                   l.Client,
		NewTokenSource:           l.keep,
		ScopeFilter: func(discovered []string) []string {
			if l.OAuth.Scopes != nil {
				return slices.Clone(l.OAuth.Scopes)
			}
			if old != nil {
				// Sign in again with what was granted, and what the
				// server asked for since (step-up).
				return unionScopes(unionScopes(discovered, old.Scopes), old.Wanted)
			}
			return discovered
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              "strata",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
	}
	if l.OAuth.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: l.OAuth.ClientMetadataURL}
	}
	if l.OAuth.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: l.OAuth.ClientID}
		if !l.ClientSecret.IsZero() {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: l.ClientSecret.v}
		}
		// A client registered beforehand is the client: no other is
		// registered in its place.
		cfg.DynamicClientRegistrationConfig = nil
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		stop()
		return nil, nil, err
	}
	return &asking{AuthorizationCodeHandler: h, l: l}, stop, nil
}

// SignedIn reports whether the server asked for a sign-in and got one.
func (l *Login) SignedIn() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.signedIn
}

// asking is the SDK's handler, which asks for a sign-in at most MaxAsks
// times.
type asking struct {
	*auth.AuthorizationCodeHandler
	l *Login
}

func (a *asking) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	a.l.mu.Lock()
	a.l.asked++
	n := a.l.asked
	a.l.mu.Unlock()
	if n > MaxAsks {
		resp.Body.Close()
		return fmt.Errorf("the server %s still refuses after %d sign-ins (%s): it may want permissions its authorization server does not give", a.l.Server, MaxAsks, resp.Status)
	}
	return a.AuthorizationCodeHandler.Authorize(ctx, req, resp)
}

// keep is the SDK's NewTokenSource: the token a sign-in gave is kept, and
// its source keeps the tokens that refreshing it gives.
func (l *Login) keep(ctx context.Context, cfg *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
	rec := &Record{
		Resource: l.Resource, Grant: config.GrantAuthorizationCode,
		TokenURL: cfg.Endpoint.TokenURL, AuthStyle: cfg.Endpoint.AuthStyle,
		ClientID: cfg.ClientID, ClientSecret: Secret{cfg.ClientSecret},
		Scopes: slices.Clone(cfg.Scopes),
	}
	rec.setToken(t)
	rec.Wanted = nil
	if err := l.Store.Save(ctx, rec); err != nil {
		return nil, fmt.Errorf("signed in to %s, but cannot keep the sign-in: %w", l.Server, err)
	}
	l.mu.Lock()
	l.signedIn = true
	l.mu.Unlock()
	return &source{store: l.Store, rec: rec, client: l.Client, server: l.Server}, nil
}

// fetch is the SDK's AuthorizationCodeFetcher: it shows the user the
// authorization URL, opens it in the browser, and waits for the browser
// to come back with the code.
func (l *Login) fetch(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	u, err := url.Parse(args.URL)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.state = u.Query().Get("state")
	l.mu.Unlock()
	if l.Show != nil {
		l.Show(args.URL)
	}
	if l.Open != nil {
		// A browser that cannot start leaves the URL shown.
		_ = l.Open(ctx, args.URL)
	}
	wait := l.Wait
	if wait <= 0 {
		wait = DefaultWait
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case a := <-l.answers:
		return a.res, a.err
	case <-t.C:
		return nil, fmt.Errorf("the browser did not come back within %v: run strata login %s again, and open the page it shows", wait, l.Server)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// callback takes the browser's return: the answer that carries the state
// of the request under way, once; any other request is refused and the
// wait goes on.
func (l *Login) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	l.mu.Lock()
	want := l.state
	l.mu.Unlock()
	if want == "" || q.Get("state") != want {
		http.Error(w, "strata is not waiting for this sign-in", http.StatusBadRequest)
		return
	}
	var a answer
	if e := q.Get("error"); e != "" {
		msg := e
		if d := q.Get("error_description"); d != "" {
			msg += ": " + d
		}
		a.err = fmt.Errorf("the authorization server refused the sign-in to %s: %s", l.Server, limits.Cut(msg, 200))
	} else {
		a.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
	}
	select {
	case l.answers <- a:
	default:
		http.Error(w, "strata has its answer already", http.StatusConflict)
		return
	}
	l.mu.Lock()
	l.state = ""
	l.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	title := "Signed in"
	text := "strata has the sign-in to " + l.Server + ". You may close this page."
	if a.err != nil {
		title, text = "Not signed in", a.err.Error()
	}
	fmt.Fprintf(w, "<!doctype html><title>strata: %s</title><p>%s</p>\n", title, html.EscapeString(text))
}
