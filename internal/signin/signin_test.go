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
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/zalando/go-keyring"
)

const tokenText = "tok-3bd9c1-value"

// TestSecretNeverPrints prints a Secret, and a Record that holds some,
// every way a message or a log would: the value never shows.
func TestSecretNeverPrints(t *testing.T) {
	s := NewSecret(tokenText)
	rec := &Record{Resource: "https://example.com/mcp", Access: s, Refresh: s, ClientSecret: s}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("record", "rec", rec, "secret", s)
	js, _ := json.Marshal(rec)
	jsr, _ := json.Marshal(*rec)
	outs := []string{
		fmt.Sprint(s), fmt.Sprintf("%v %s %q %d %x %X %+v %#v %T", s, s, s, s, s, s, s, s, s),
		fmt.Sprintf("%v %+v %#v", rec, rec, *rec), fmt.Sprintf("%v", []Secret{s}),
		fmt.Errorf("with %v", s).Error(), string(js), string(jsr), logged.String(),
	}
	for _, out := range outs {
		if strings.Contains(out, tokenText) || strings.Contains(out, fmt.Sprintf("%x", tokenText)) {
			t.Errorf("the secret's value is in %q", out)
		}
	}
	if s.Value() != tokenText {
		t.Errorf("Value() = %q", s.Value())
	}
}

func TestResource(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"as is", "https://example.com/mcp", "https://example.com/mcp"},
		{"case of scheme and host", "HTTPS://Example.COM/mcp", "https://example.com/mcp"},
		{"default port", "https://example.com:443/mcp", "https://example.com/mcp"},
		{"http default port", "http://127.0.0.1:80/mcp", "http://127.0.0.1/mcp"},
		{"other port kept", "https://example.com:8443/mcp", "https://example.com:8443/mcp"},
		{"trailing slash", "https://example.com/mcp/", "https://example.com/mcp"},
		{"fragment and user dropped", "https://u:p@example.com/mcp#x", "https://example.com/mcp"},
		{"query kept", "https://example.com/mcp?tenant=a", "https://example.com/mcp?tenant=a"},
		{"path case kept", "https://example.com/MCP", "https://example.com/MCP"},
		{"ipv6 default port", "https://[::1]:443/mcp", "https://[::1]/mcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resource(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Resource(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	for _, bad := range []string{"ftp://example.com", "http://:80/mcp", "https://:443", "https://:8443/mcp", "https:///mcp"} {
		if got, err := Resource(bad); err == nil {
			t.Errorf("Resource(%q) = %q; want an error: no http(s) URL with a host", bad, got)
		}
	}
}

func newRecord(resource string) *Record {
	return &Record{Resource: resource, Grant: "authorization_code", TokenURL: "https://as.example.com/token", ClientID: "c",
		Access: NewSecret(tokenText), Refresh: NewSecret("rt-" + tokenText), Scopes: []string{"a"}, Expiry: time.Unix(2e9, 0).UTC()}
}

// TestStoreFile keeps a sign-in in the file, mode 0600 in a directory of
// mode 0700, reads it back, and forgets it.
func TestStoreFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := &Store{Service: "strata-test", File: filepath.Join(dir, "data", "tokens.json")}
	if _, err := s.Load(ctx, "https://a.example/mcp"); !errors.Is(err, ErrNoSignIn) {
		t.Fatalf("Load of nothing: %v", err)
	}
	rec := newRecord("https://a.example/mcp")
	if err := s.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, rec.Resource)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rec, got, cmp.Comparer(func(a, b Secret) bool { return a.v == b.v })); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
	for path, want := range map[string]os.FileMode{s.File: 0o600, filepath.Dir(s.File): 0o700} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), want)
		}
	}
	if _, err := s.Load(ctx, "https://a.example/other"); !errors.Is(err, ErrNoSignIn) {
		t.Errorf("another path of the same origin has the sign-in: %v", err)
	}
	found, err := s.Delete(ctx, rec.Resource)
	if err != nil || !found {
		t.Fatalf("Delete = %v, %v", found, err)
	}
	b, _ := os.ReadFile(s.File)
	if strings.Contains(string(b), tokenText) {
		t.Errorf("the token is still in the file after Delete:\n%s", b)
	}
}

// TestStoreKeychain keeps sign-ins in the keychain where one answers
// (go-keyring's mock), never in the file; where it fails, in the file,
// and says why.
func TestStoreKeychain(t *testing.T) {
	ctx := context.Background()
	keyring.MockInit()
	dir := t.TempDir()
	s := &Store{Service: "strata-test", File: filepath.Join(dir, "tokens.json"), Keychain: true}
	rec := newRecord("https://a.example/mcp")
	if err := s.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.File); err == nil {
		t.Errorf("the file was written although the keychain answered")
	}
	if got, err := s.Load(ctx, rec.Resource); err != nil || got.Access.v != tokenText {
		t.Fatalf("Load = %v, %v", got, err)
	}
	if s.Where() != "the OS keychain" || s.Fallback() != nil {
		t.Errorf("Where = %q, Fallback = %v", s.Where(), s.Fallback())
	}
	if found, err := s.Delete(ctx, rec.Resource); !found || err != nil {
		t.Errorf("Delete = %v, %v", found, err)
	}

	keyring.MockInitWithError(errors.New("no secret service"))
	s = &Store{Service: "strata-test", File: filepath.Join(dir, "tokens.json"), Keychain: true}
	if err := s.Save(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if s.Fallback() == nil || !strings.Contains(s.Where(), s.File) {
		t.Errorf("after the keychain failed: Where = %q, Fallback = %v", s.Where(), s.Fallback())
	}
	if got, err := s.Load(ctx, rec.Resource); err != nil || got.Access.v != tokenText {
		t.Errorf("Load from the file = %v, %v", got, err)
	}
}

// TestClientDoesNotSendOn refuses to follow a redirect of a request that
// sends something (a code, a refresh token, a secret): the place it points
// to gets nothing.
func TestClientDoesNotSendOn(t *testing.T) {
	var reached atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached.Add(1) }))
	defer elsewhere.Close()
	as := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/token", http.StatusTemporaryRedirect)
	}))
	defer as.Close()
	_, err := NewClient(nil).Post(as.URL+"/token", "application/x-www-form-urlencoded", strings.NewReader("refresh_token="+tokenText))
	if err == nil || !strings.Contains(err.Error(), "strata does not send a sign-in's request on") {
		t.Errorf("want the redirect refused, got %v", err)
	}
	if reached.Load() != 0 {
		t.Errorf("the redirect's target was reached")
	}
}

// TestClientBoundsAnswers fails an answer larger than MaxResponse.
func TestClientBoundsAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", MaxResponse+1)))
	}))
	defer srv.Close()
	resp, err := NewClient(nil).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("want the answer refused, got %v", err)
	}
}

// TestCallbackTakesItsStateOnly: the loopback callback takes only the
// answer that carries the state of the request under way; another
// (a page that knows the port) is refused and the wait goes on.
func TestCallbackTakesItsStateOnly(t *testing.T) {
	ctx := context.Background()
	l := &Login{Store: &Store{File: filepath.Join(t.TempDir(), "t.json")}, Server: "s", Resource: "https://a.example/mcp", Wait: time.Minute}
	if _, stop, err := l.Start(ctx); err != nil {
		t.Fatal(err)
	} else {
		defer stop()
	}
	if host := l.ln.Addr().String(); !strings.HasPrefix(host, "127.0.0.1:") {
		t.Errorf("the callback listens on %s, not 127.0.0.1 alone", host)
	}
	callback := "http://" + l.ln.Addr().String() + "/callback"
	shown := make(chan string, 1)
	l.Show = func(u string) { shown <- u }
	type result struct {
		res *auth.AuthorizationResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := l.fetch(ctx, &auth.AuthorizationArgs{URL: "https://as.example/authorize?state=right&client_id=c"})
		done <- result{res, err}
	}()
	<-shown
	for _, q := range []string{"?code=evil&state=wrong", "?code=evil"} {
		resp, err := http.Get(callback + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("callback%s answered %s, want 400", q, resp.Status)
		}
	}
	resp, err := http.Get(callback + "?code=good&state=right&iss=https%3A%2F%2Fas.example")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if diff := cmp.Diff(&auth.AuthorizationResult{Code: "good", State: "right", Iss: "https://as.example"}, r.res); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}

// TestAssertion signs a client assertion (private_key_jwt) that the key's
// public half verifies, for the authorization server, of the client.
func TestAssertion(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	h := &keyHandler{clientID: "ci", key: parsed}
	jwt, err := h.assertion("https://as.example")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", jwt)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		t.Fatalf("signature: %v, %d bytes", err, len(sig))
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(&key.PublicKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Error("the signature does not verify")
	}
	var header map[string]string
	var claims map[string]any
	for i, v := range []any{&header, &claims} {
		b, _ := base64.RawURLEncoding.DecodeString(parts[i])
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	if header["alg"] != "ES256" || claims["iss"] != "ci" || claims["sub"] != "ci" || claims["aud"] != "https://as.example" || claims["jti"] == "" {
		t.Errorf("header %v, claims %v", header, claims)
	}
	if exp, iat := claims["exp"].(float64), claims["iat"].(float64); exp-iat != 60 {
		t.Errorf("valid for %v s, want 60", exp-iat)
	}
	if _, err := ParseKey([]byte("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n")); err == nil {
		t.Error("an RSA key block is taken")
	}
}
