package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcptest"
)

// signInSetup is a user with a remote server that needs a sign-in, and
// the directories strata may write to, all under one temporary home.
type signInSetup struct {
	srv     *mcptest.SignIn
	home    string
	environ []string
	outputs []string // everything strata printed
}

// browser is what the tests' $BROWSER is: curl following the
// authorization server's redirect back to strata's callback, as a browser
// does once the user has approved.
const browser = "curl -fsS -o /dev/null -L"

func newSignInSetup(t *testing.T) *signInSetup {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the test's browser is curl, which is not installed")
	}
	s := &signInSetup{srv: mcptest.NewSignIn(t), home: t.TempDir()}
	s.environ = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + s.home,
		"XDG_CONFIG_HOME=" + filepath.Join(s.home, "config"), "XDG_CACHE_HOME=" + filepath.Join(s.home, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(s.home, "data"), "BROWSER=" + browser,
	}
	mkdir(t, filepath.Join(s.home, "config", "strata"))
	writeFile(t, filepath.Join(s.home, "config", "strata", "config.toml"),
		"[tools.'*']\nrun = \"unattended\"\n\n[mcp_servers.remote]\nurl = \""+s.srv.URL+"\"\n")
	return s
}

// strata runs strata in the home directory.
func (s *signInSetup) strata(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(strataBin, args...)
	cmd.Env, cmd.Dir = s.environ, s.home
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	s.outputs = append(s.outputs, r.stdout, r.stderr)
	return r
}

// tokenFile is where strata keeps sign-ins on a machine without a
// keychain (the tests' environment names no D-Bus session bus).
func (s *signInSetup) tokenFile() string {
	return filepath.Join(s.home, "data", "strata", "tokens.json")
}

// TestSignInEndToEnd signs in to a server and its authorization server
// (DCR, PKCE, the resource and iss checked by the server), lists and calls
// its tool, has the server expire the token and sees it refreshed (and
// the refresh token rotated), signs out, and sees the error that names
// strata login. No token is found anywhere strata wrote or printed but in
// the 0600 file of sign-ins.
func TestSignInEndToEnd(t *testing.T) {
	t.Parallel()
	s := newSignInSetup(t)

	r := s.strata(t, "call", "echo", `{"text":"hi"}`)
	if r.code != 1 || !strings.Contains(r.stderr, "the server remote needs a sign-in (strata holds no sign-in for it): run strata login remote") {
		t.Fatalf("before sign-in, want an error naming strata login, got %v", r)
	}

	r = s.strata(t, "login", "remote")
	if r.code != 0 || !strings.Contains(r.stdout, "signed in to remote: 1 tools; the sign-in is kept in "+s.tokenFile()+" (mode 0600: no OS keychain here)") {
		t.Fatalf("login: %v", r)
	}
	if !strings.Contains(r.stderr, "open this page") || !strings.Contains(r.stderr, s.srv.Issuer+"/authorize?") {
		t.Errorf("login did not show the page to open: %v", r)
	}
	info, err := os.Stat(s.tokenFile())
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("the file of sign-ins has mode %v, want 0600", info.Mode().Perm())
	}

	r = s.strata(t, "call", "echo", `{"text":"hi"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "echo: hi") {
		t.Fatalf("call after sign-in: %v", r)
	}
	r = s.strata(t, "login", "--list")
	if r.code != 0 || !strings.Contains(r.stdout, "remote\t"+s.srv.URL+"\tsigned in (scopes ") {
		t.Errorf("login --list: %v", r)
	}

	before := storedRefresh(t, s.tokenFile())
	s.srv.Expire()
	r = s.strata(t, "call", "echo", `{"text":"again"}`)
	if r.code != 0 || !strings.Contains(r.stdout, "echo: again") {
		t.Fatalf("call with an expired token: %v", r)
	}
	if got := s.srv.Refreshes(); got != 1 {
		t.Errorf("the authorization server granted %d refreshes, want 1", got)
	}
	if after := storedRefresh(t, s.tokenFile()); after == before || after == "" {
		t.Errorf("the refresh token was not rotated in the store")
	}

	r = s.strata(t, "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "sign-in: signed in (scopes ") {
		t.Errorf("doctor: %v", r)
	}

	r = s.strata(t, "logout", "remote")
	if r.code != 0 || r.stdout != "signed out of remote: strata forgot its sign-in\n" {
		t.Fatalf("logout: %v", r)
	}
	r = s.strata(t, "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "fix: run strata login remote") || !strings.Contains(r.stdout, "sign-in: not signed in") {
		t.Errorf("doctor after logout: %v", r)
	}
	// The tools are cached now: the call reaches the server, whose
	// refusal is the call's outcome.
	r = s.strata(t, "call", "echo", `{"text":"hi"}`)
	want := `"message": "echo: the server remote needs a sign-in (strata holds no sign-in for it): run strata login remote"`
	if r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("after logout, want %s, got %v", want, r)
	}

	checkNoTokenLeak(t, s, s.home, s.tokenFile())
}

// storedRefresh returns the refresh token kept in the file of sign-ins.
func storedRefresh(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Tokens map[string]struct {
			Refresh string `json:"refresh_token"`
		} `json:"tokens"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, v := range f.Tokens {
		return v.Refresh
	}
	return ""
}

// checkNoTokenLeak looks for every token the authorization server issued
// in every file under dir and in everything strata printed: it may be only
// in allowed.
func checkNoTokenLeak(t *testing.T, s *signInSetup, dir, allowed string) {
	t.Helper()
	issued := s.srv.Issued()
	if len(issued) == 0 {
		t.Fatal("no token was issued: the test looks for nothing")
	}
	files := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == allowed {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		for _, tok := range issued {
			if bytes.Contains(b, []byte(tok)) {
				t.Errorf("a token is in %s", path)
			}
		}
		return nil
	})
	if files == 0 {
		t.Error("strata wrote no file besides the sign-ins: the cache should be there")
	}
	for _, out := range s.outputs {
		for _, tok := range issued {
			if strings.Contains(out, tok) {
				t.Errorf("a token is in what strata printed:\n%s", out)
			}
		}
	}
}

// TestSignInServeHTTP has strata serve --http call the tool of a server
// the user signed in to, with the sign-in refreshed as it expires, and,
// once the authorization server no longer refreshes it, answer the call
// with a tool error that names strata login. The call log holds no token.
func TestSignInServeHTTP(t *testing.T) {
	t.Parallel()
	s := newSignInSetup(t)
	if r := s.strata(t, "login", "remote"); r.code != 0 {
		t.Fatalf("login: %v", r)
	}
	ws := t.TempDir()
	mkdir(t, filepath.Join(ws, ".strata"))
	callLog := filepath.Join(s.home, "calls.jsonl")
	url, _ := serveHTTPProcess(t, strataBin, ws, s.environ, "--no-token", "--call-log", callLog)

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	callText := func(text string) (string, bool) {
		t.Helper()
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				out = append(out, tc.Text)
			}
		}
		return strings.Join(out, "\n"), res.IsError
	}
	if got, isErr := callText("one"); isErr || got != "echo: one" {
		t.Fatalf("first call: %q (error %v)", got, isErr)
	}
	s.srv.Expire()
	if got, isErr := callText("two"); isErr || got != "echo: two" {
		t.Fatalf("call with an expired token: %q (error %v)", got, isErr)
	}
	if got := s.srv.Refreshes(); got != 1 {
		t.Errorf("the authorization server granted %d refreshes, want 1", got)
	}
	s.srv.Expire()
	s.srv.RefuseRefresh()
	got, isErr := callText("three")
	if !isErr || !strings.Contains(got, "run strata login remote") {
		t.Errorf("once the sign-in expired for good, want a tool error naming strata login, got %q (error %v)", got, isErr)
	}
	// The user signs in again, as the error says; the gateway takes the
	// new sign-in at its next call, without a restart.
	if r := s.strata(t, "login", "remote"); r.code != 0 {
		t.Fatalf("login again: %v", r)
	}
	if got, isErr := callText("four"); isErr || got != "echo: four" {
		t.Errorf("after signing in again: %q (error %v)", got, isErr)
	}
	s.outputs = append(s.outputs, got)
	checkNoTokenLeak(t, s, s.home, s.tokenFile())
}

// TestSignInUntrustedWorkspace: a workspace nobody trusted that defines
// a server at the URL the user signed in to can neither sign in to it
// nor have the token sent for it: its files are not applied, and strata
// says so, naming strata trust.
func TestSignInUntrustedWorkspace(t *testing.T) {
	t.Parallel()
	s := newSignInSetup(t)
	if r := s.strata(t, "login", "remote"); r.code != 0 {
		t.Fatalf("login: %v", r)
	}
	ws := filepath.Join(s.home, "ws")
	mkdir(t, filepath.Join(ws, ".strata"))
	writeFile(t, filepath.Join(ws, ".strata", "config.toml"), "[mcp_servers.mine]\nurl = \""+s.srv.URL+"\"\n")
	r := s.strata(t, "login", "--root", ws, "mine")
	if r.code != 1 || !strings.Contains(r.stderr, "mcp_servers.mine: no such MCP server in the layers applied; the files of this workspace are not applied, nor signed in to, until you trust it (strata trust)") {
		t.Errorf("login in an untrusted workspace: %v", r)
	}
	r = s.strata(t, "login", "--root", ws, "--list")
	if r.code != 0 || strings.Contains(r.stdout, "mine") {
		t.Errorf("login --list shows the untrusted workspace's server: %v", r)
	}
	checkNoTokenLeak(t, s, s.home, s.tokenFile())
}

// TestSignInTokenStaysWithItsServer: a server that asks for a sign-in
// and names the authorization server of a server the user signed in to
// is never sent that server's token, whether it is on another origin or
// on another path of the same one.
func TestSignInTokenStaysWithItsServer(t *testing.T) {
	t.Parallel()
	s := newSignInSetup(t)
	if r := s.strata(t, "login", "remote"); r.code != 0 {
		t.Fatalf("login: %v", r)
	}
	var got []string
	var mu sync.Mutex
	greedy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.srv.URL+`"`)
		http.Error(w, "sign in", http.StatusUnauthorized)
	}))
	defer greedy.Close()
	cfg := filepath.Join(s.home, "config", "strata", "config.toml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	sibling := strings.TrimSuffix(s.srv.URL, "/mcp") + "/other"
	writeFile(t, cfg, string(b)+"\n[mcp_servers.greedy]\nurl = \""+greedy.URL+"/mcp\"\noptional = true\n\n[mcp_servers.sibling]\nurl = \""+sibling+"\"\noptional = true\n")
	r := s.strata(t, "resolve", "--refresh")
	if !strings.Contains(r.stderr, "the server greedy needs a sign-in (strata holds no sign-in for it): run strata login greedy") {
		t.Errorf("resolve: %v", r)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("the greedy server was not asked")
	}
	for _, h := range got {
		if h != "" {
			t.Errorf("the greedy server was sent Authorization: %q", h)
		}
	}
	strays := s.srv.Strays()
	if len(strays) == 0 {
		t.Fatal("the sibling path was not asked")
	}
	for _, h := range strays {
		if h != "" {
			t.Errorf("another path of the server's origin was sent Authorization: %q", h)
		}
	}
	checkNoTokenLeak(t, s, s.home, s.tokenFile())
}

// TestSignInRefusesAnotherIssuer: an answer to the browser that names
// another authorization server than the one strata asked (RFC 9207's
// iss, a mix-up attack) is refused, and no token is asked for or kept.
func TestSignInRefusesAnotherIssuer(t *testing.T) {
	t.Parallel()
	s := newSignInSetup(t)
	s.srv.WrongIssuer = "https://attacker.example"
	r := s.strata(t, "login", "remote")
	if r.code != 1 || !strings.Contains(r.stderr, `authorization response issuer "https://attacker.example" does not match expected issuer`) {
		t.Errorf("login: %v", r)
	}
	if len(s.srv.Issued()) != 0 {
		t.Errorf("tokens were issued: the code was exchanged")
	}
	if _, err := os.Stat(s.tokenFile()); err == nil {
		t.Errorf("a sign-in was kept")
	}
}
