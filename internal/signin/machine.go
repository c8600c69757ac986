package signin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// Machine returns the handler of a server that a machine signs in to,
// with the client credentials grant (the MCP extension for machines): no
// user, no browser, no strata login, and nothing kept: the token is asked
// for when the server first refuses a request, and again when it
// expires. The client authenticates with its secret (the SDK's
// extauth.ClientCredentialsHandler, client_secret_basic or
// client_secret_post as the authorization server prefers) or with key,
// an EC P-256 private key (private_key_jwt: a JWT it signs for each
// request, ES256).
func Machine(clientID string, secret Secret, key *ecdsa.PrivateKey, scopes []string, c *http.Client) (auth.OAuthHandler, error) {
	if key == nil {
		return extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: clientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: secret.v}},
			HTTPClient:  c,
		})
	}
	return &keyHandler{clientID: clientID, key: key, scopes: scopes, client: c}, nil
}

// ParseKey reads an EC P-256 private key from PEM (PKCS #8, or SEC 1's
// "EC PRIVATE KEY").
func ParseKey(data []byte) (*ecdsa.PrivateKey, error) {
	b, _ := pem.Decode(data)
	if b == nil {
		return nil, errors.New("no PEM block: expected a private key in PEM")
	}
	var k any
	var err error
	switch b.Type {
	case "PRIVATE KEY":
		k, err = x509.ParsePKCS8PrivateKey(b.Bytes)
	case "EC PRIVATE KEY":
		k, err = x509.ParseECPrivateKey(b.Bytes)
	default:
		return nil, fmt.Errorf("a PEM block of %q, not a private key", b.Type)
	}
	if err != nil {
		return nil, err
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, errors.New("not an EC P-256 key: strata signs with ES256")
	}
	return ec, nil
}

// keyHandler is the client credentials grant with private_key_jwt.
type keyHandler struct {
	clientID string
	key      *ecdsa.PrivateKey
	scopes   []string
	client   *http.Client

	mu  sync.Mutex
	src oauth2.TokenSource
}

func (h *keyHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.src, nil
}

// Authorize finds the token endpoint from the server's 401 (its
// protected resource metadata, then its authorization server's), and
// asks it for a token.
func (h *keyHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode != http.StatusUnauthorized {
		return nil
	}
	cs, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	prm, err := resourceMetadata(ctx, cs, req.URL.String(), h.client)
	if err != nil {
		return err
	}
	asm, err := auth.GetAuthServerMetadata(ctx, prm.AuthorizationServers[0], h.client)
	if err != nil {
		return err
	}
	if asm == nil {
		return fmt.Errorf("no metadata of the authorization server %s", prm.AuthorizationServers[0])
	}
	_, scopes := bearer(cs)
	if h.scopes != nil {
		scopes = h.scopes
	} else if len(scopes) == 0 {
		scopes = prm.ScopesSupported
	}
	issuer, tokenURL, resource := asm.Issuer, asm.TokenEndpoint, prm.Resource
	fetch := tokenFunc(func() (*oauth2.Token, error) {
		assertion, err := h.assertion(issuer)
		if err != nil {
			return nil, err
		}
		cfg := clientcredentials.Config{
			ClientID: h.clientID, TokenURL: tokenURL, Scopes: scopes, AuthStyle: oauth2.AuthStyleInParams,
			EndpointParams: url.Values{
				"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
				"client_assertion":      {assertion},
				"resource":              {resource},
			},
		}
		return cfg.Token(context.WithValue(context.Background(), oauth2.HTTPClient, h.client))
	})
	src := oauth2.ReuseTokenSource(nil, fetch)
	if _, err := src.Token(); err != nil {
		return fmt.Errorf("the client credentials grant failed: %w", err)
	}
	h.mu.Lock()
	h.src = src
	h.mu.Unlock()
	return nil
}

type tokenFunc func() (*oauth2.Token, error)

func (f tokenFunc) Token() (*oauth2.Token, error) { return f() }

// assertion returns a JWT that says the client is itself (RFC 7523 as
// client authentication), for the authorization server aud, valid for a
// minute.
func (h *keyHandler) assertion(aud string) (string, error) {
	now := time.Now()
	header := map[string]string{"alg": "ES256", "typ": "JWT"}
	claims := map[string]any{
		"iss": h.clientID, "sub": h.clientID, "aud": aud,
		"iat": now.Unix(), "exp": now.Add(time.Minute).Unix(), "jti": rand.Text(),
	}
	hb, _ := json.Marshal(header)
	cb, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(hb) + "." + enc.EncodeToString(cb)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, h.key, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + enc.EncodeToString(sig), nil
}

// resourceMetadata finds the protected resource metadata of the server
// at server, as the MCP specification orders: the URL its 401 names,
// then at the path of its endpoint, then at its root; each checked by
// the SDK (its resource is the server's).
func resourceMetadata(ctx context.Context, cs []oauthex.Challenge, server string, c *http.Client) (*oauthex.ProtectedResourceMetadata, error) {
	u, err := url.Parse(server)
	if err != nil {
		return nil, err
	}
	type try struct{ at, resource string }
	var tries []try
	for _, ch := range cs {
		if m := ch.Params["resource_metadata"]; m != "" {
			tries = append(tries, try{m, server})
			break
		}
	}
	at := *u
	at.RawQuery, at.Fragment = "", ""
	at.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	tries = append(tries, try{at.String(), server})
	root := at
	root.Path = "/"
	at.Path = "/.well-known/oauth-protected-resource"
	tries = append(tries, try{at.String(), strings.TrimSuffix(root.String(), "/")})
	var first error
	for _, t := range tries {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, t.at, t.resource, c)
		if err == nil && prm != nil && len(prm.AuthorizationServers) > 0 {
			return prm, nil
		}
		if first == nil && err != nil {
			first = err
		}
	}
	if first == nil {
		first = errors.New("not found")
	}
	return nil, fmt.Errorf("no protected resource metadata for %s: %v", server, first)
}
