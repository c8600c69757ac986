package signin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kballard/go-shellquote"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Handler is the sign-in of one server for a run that cannot ask the
// user (resolve, call, serve, doctor), an auth.OAuthHandler for
// mcpclient.Dial: it sends the token kept for the server, refreshes it
// when it has expired (keeping the refresh token the authorization server
// rotates), and, where there is none or the server refuses it, fails the
// request with a [*NeedsSignIn] that names strata login. It never starts
// a sign-in: no browser, no registration.
//
// A sign-in made meanwhile (strata login in another terminal, while
// strata serve runs) is picked up at the server's next 401.
type Handler struct {
	Store  *Store
	Server string // the server's name in the config, for messages
	// Resource is the server's [Resource]: the sign-in kept under it is
	// the only one sent, and only to this server.
	Resource string
	// Client makes the requests to the token endpoint (see [NewClient]).
	Client *http.Client

	mu     sync.Mutex
	loaded bool
	rec    *Record // nil: not signed in
	src    *source
}

var _ auth.OAuthHandler = (*Handler)(nil)

// TokenSource returns the source of the server's token, or nil when
// strata holds no sign-in for it (the request goes without one, and the
// server's 401 comes to Authorize).
func (h *Handler) TokenSource(ctx context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.loaded {
		h.loaded = true
		if err := h.reload(ctx); err != nil {
			return nil, err
		}
	}
	if h.src == nil {
		return nil, nil
	}
	return h.src, nil
}

// reload reads the server's sign-in from the store. h.mu is held.
func (h *Handler) reload(ctx context.Context) error {
	rec, err := h.Store.Load(ctx, h.Resource)
	if errors.Is(err, ErrNoSignIn) {
		h.rec, h.src = nil, nil
		return nil
	}
	if err != nil {
		return err
	}
	h.rec = rec
	h.src = &source{store: h.Store, rec: rec, client: h.Client, server: h.Server}
	return nil
}

// Authorize is called with the server's 401 or 403. It takes a sign-in
// kept meanwhile, if there is a newer one (the request is then sent
// again), and otherwise fails with [*NeedsSignIn]; a 403 for insufficient
// scope records the scopes the server asked for, which the next strata
// login asks for too (step-up). A 403 for another reason is the server's
// answer, which the request then returns.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	errCode, scopes := bearer(cs)
	if resp.StatusCode == http.StatusForbidden && errCode != "insufficient_scope" {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	sent, dead := "", false
	if h.src != nil {
		sent, dead = h.src.state()
	}
	if err := h.reload(ctx); err != nil {
		return err
	}
	h.loaded = true
	if h.rec == nil {
		return &NeedsSignIn{Server: h.Server, Why: "strata holds no sign-in for it"}
	}
	if resp.StatusCode == http.StatusUnauthorized {
		if h.rec.Access.v != sent {
			return nil // a sign-in made meanwhile: send it
		}
		if !dead && !h.rec.Refresh.IsZero() {
			// The server says the token is no longer good before its
			// time (revoked, or expired by the server's clock): refresh
			// it, and send the request again.
			_, err := h.src.refresh(ctx, sent)
			if err == nil {
				return nil
			}
			if _, dead = h.src.state(); !dead {
				return err
			}
		}
	}
	if resp.StatusCode == http.StatusForbidden {
		wanted := slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return slices.Contains(h.rec.Scopes, s) })
		if len(wanted) > 0 && !sameSet(wanted, h.rec.Wanted) {
			h.rec.Wanted = unionScopes(h.rec.Wanted, wanted)
			if err := h.Store.Save(ctx, h.rec); err != nil {
				return fmt.Errorf("the server %s needs more permissions, which strata cannot record: %w", h.Server, err)
			}
		}
		return &NeedsSignIn{Server: h.Server, Scopes: unionScopes(h.rec.Scopes, scopes)}
	}
	why := "the server refused the token strata holds for it"
	switch {
	case dead:
		why = "the sign-in expired, and the authorization server no longer refreshes it"
	case !h.rec.Expiry.IsZero() && time.Now().After(h.rec.Expiry) && h.rec.Refresh.IsZero():
		why = "the sign-in expired and cannot be refreshed"
	}
	return &NeedsSignIn{Server: h.Server, Why: why}
}

// bearer returns the error and the scopes of the Bearer challenge of cs.
func bearer(cs []oauthex.Challenge) (code string, scopes []string) {
	for _, c := range cs {
		if c.Scheme == "bearer" {
			return c.Params["error"], strings.Fields(c.Params["scope"])
		}
	}
	return "", nil
}

// source is the token of a kept sign-in, refreshed when it has expired;
// a refreshed token (and a rotated refresh token) is kept at once. Before
// refreshing it reads the store again: another strata may have refreshed
// it already, rotating the refresh token this one holds.
type source struct {
	store  *Store
	client *http.Client
	server string

	mu   sync.Mutex
	rec  *Record
	dead bool // the authorization server refused to refresh it
}

// state returns the access token the source gives, and whether the
// authorization server refused to refresh it.
func (s *source) state() (access string, dead bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec.Access.v, s.dead
}

// expiryDelta is how long before its expiry a token is refreshed: as
// oauth2 does, so that it does not expire on its way.
const expiryDelta = 10 * time.Second

func valid(t *oauth2.Token) bool {
	return t.AccessToken != "" && (t.Expiry.IsZero() || time.Now().Add(expiryDelta).Before(t.Expiry))
}

func (s *source) Token() (*oauth2.Token, error) {
	return s.refresh(context.Background(), "")
}

// refresh returns the token, refreshed when it has expired, or when it is
// refused, the token the server refused (not "").
func (s *source) refresh(ctx context.Context, refused string) (*oauth2.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	usable := func(t *oauth2.Token) bool { return valid(t) && (refused == "" || t.AccessToken != refused) }
	if t := s.rec.token(); usable(t) {
		return t, nil
	}
	if fresh, err := s.store.Load(ctx, s.rec.Resource); err == nil && usable(fresh.token()) {
		s.rec = fresh
		return fresh.token(), nil
	} else if err == nil {
		s.rec = fresh
	}
	if s.rec.Refresh.IsZero() || s.rec.TokenURL == "" {
		// Sent as it is: the server's 401 says it expired.
		return s.rec.token(), nil
	}
	ctx = context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, s.client)
	old := s.rec.token()
	old.Expiry = time.Unix(1, 0) // oauth2 refreshes only what has expired
	t, err := s.rec.config().TokenSource(ctx, old).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_grant" {
			// The refresh token is no longer good: the request goes
			// without a token, and its 401 says to sign in again.
			s.dead = true
			return nil, err
		}
		return nil, fmt.Errorf("cannot refresh the sign-in to %s: %w", s.server, err)
	}
	rec := *s.rec
	rec.setToken(t)
	if err := s.store.Save(ctx, &rec); err != nil {
		return nil, fmt.Errorf("refreshed the sign-in to %s but cannot keep it (%v): sign in again with strata login %s", s.server, err, shellquote.Join(s.server))
	}
	s.rec = &rec
	return rec.token(), nil
}

// unionScopes returns a's scopes, then those of b that a lacks.
func unionScopes(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}
