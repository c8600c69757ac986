package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcptest"
)

// What a client of strata serve --http may do to it, and to the other
// clients: hold connections, open sessions. (Issue 34: each of these
// reproduced on main.)

// gatewayWorkspace writes a workspace whose config is config (every tool
// run unattended: the clients of these tests ask nobody) and a token file,
// and returns the workspace's root, the environment to run strata in, the
// token file and its token.
func gatewayWorkspace(t *testing.T, config string) (root string, environ []string, tokenFile, token string) {
	t.Helper()
	root = t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".strata"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".strata", "config.toml"), []byte("[tools.'*']\nrun = \"unattended\"\n\n"+config), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	token = "0123456789abcdef0123456789abcdef"
	tokenFile = filepath.Join(home, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"), "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata")}
	return root, environ, tokenFile, token
}

// echoServer is the config of mcpfake serving its tool echo.
func echoServer(args ...string) string {
	quoted := []string{`"-echo"`}
	for _, a := range args {
		quoted = append(quoted, fmt.Sprintf("%q", a))
	}
	return fmt.Sprintf("[mcp_servers.fake]\ncommand = %q\nargs = [%s]\nexpose = \"all\"\n", mcpfake, strings.Join(quoted, ", "))
}

// initializeBody is the initialize request of a client named client, of
// protocol 2025-11-25, that declares no capability.
func initializeBody(client string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"` + client + `","version":"1"}}}`
}

// rawPost writes a POST of body to /mcp on c by hand, with the headers
// given (each a line of "Name: value"), and reads the response.
func rawPost(c net.Conn, host, body string, headers ...string) (*http.Response, *bufio.Reader, error) {
	req := "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n", len(body))
	for _, h := range headers {
		req += h + "\r\n"
	}
	if _, err := io.WriteString(c, req+"\r\n"+body); err != nil {
		return nil, nil, err
	}
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, nil, err
	}
	_, err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res, br, err
}

// closedByServer reports whether the server closed c (the next read ends
// the stream, or the connection was reset), waiting at most until
// deadline, a safety net; what the read gave is the error otherwise.
func closedByServer(c net.Conn, r io.Reader, deadline time.Time) error {
	c.SetReadDeadline(deadline)
	n, err := r.Read(make([]byte, 1))
	switch {
	case n > 0:
		return errors.New("the server wrote more")
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return nil
	case err == nil:
		return errors.New("nothing read, no error")
	}
	return err
}

// TestServeHTTPRefusalsClose: a request strata serve --http refuses (no
// token, a foreign Origin or Host) is answered with Connection: close, and
// strata closes the connection: a client it refused holds no descriptor.
// The body of a refused request is not read, however large it says it is.
// (On main a refused client could keep its connection open for ever: 245
// of them took every descriptor of a process limited to 256.)
func TestServeHTTPRefusalsClose(t *testing.T) {
	root, environ, tokenFile, token := gatewayWorkspace(t, "")
	url, _ := serveHTTPProcess(t, strataBin, root, environ, "--token-file", tokenFile)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	tests := []struct {
		name    string
		host    string
		body    string
		headers []string
		want    int
	}{
		{name: "no token", want: http.StatusUnauthorized},
		{name: "wrong token", headers: []string{"Authorization: Bearer " + strings.Repeat("0", len(token))}, want: http.StatusUnauthorized},
		{name: "foreign origin", headers: []string{"Authorization: Bearer " + token, "Origin: https://evil.example"}, want: http.StatusForbidden},
		{name: "foreign host", host: "evil.example", headers: []string{"Authorization: Bearer " + token}, want: http.StatusForbidden},
		// The body announced is never sent: strata answers without it.
		{name: "a gigabyte announced", body: "{", headers: []string{"Transfer-Encoding: chunked"}, want: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			deadline := time.Now().Add(time.Minute) // a safety net
			c.SetDeadline(deadline)
			host, body := tt.host, tt.body
			if host == "" {
				host = addr
			}
			var res *http.Response
			var br *bufio.Reader
			if body == "" {
				res, br, err = rawPost(c, host, initializeBody("refused"), tt.headers...)
			} else {
				// Headers that announce a body, and the first byte of it.
				_, err = io.WriteString(c, "POST /mcp HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/json\r\n"+strings.Join(tt.headers, "\r\n")+"\r\n\r\n40000000\r\n"+body)
				if err == nil {
					br = bufio.NewReader(c)
					res, err = http.ReadResponse(br, nil)
				}
				if err == nil {
					io.Copy(io.Discard, res.Body)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.want {
				t.Errorf("status %d, want %d", res.StatusCode, tt.want)
			}
			if !res.Close {
				t.Errorf("the %d has no Connection: close (headers %v)", res.StatusCode, res.Header)
			}
			if err := closedByServer(c, br, deadline); err != nil {
				t.Errorf("strata kept the connection open after its %d: %v", res.StatusCode, err)
			}
		})
	}
}

// TestServeHTTPBodyBound: the body of an admitted request is read within
// 4 MiB (the SDK's bound); a larger one is answered 413, and the client
// and strata go on.
func TestServeHTTPBodyBound(t *testing.T) {
	root, environ, _, _ := gatewayWorkspace(t, echoServer())
	url, _ := serveHTTPProcess(t, strataBin, root, environ, "--no-token")
	sid := httpSession(t, url, "big")
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"x":"` + strings.Repeat("x", 4<<20) + `"}}}`
	resp := httpPost(t, url, sid, big)
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "exceeds 4194304 bytes") {
		t.Errorf("a body over 4 MiB: %s %s", resp.Status, body)
	}
	if got := callText(t, url, sid, `{"name":"echo","arguments":{"x":"small"}}`); !strings.Contains(got, `"x":"small"`) {
		t.Errorf("a call after it: %s", got)
	}
}

// sseResult reads the JSON-RPC response of an event stream (or a JSON
// body) of strata serve --http.
func sseResult(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		t.Fatal(err)
	}
	text := string(body)
	for _, line := range strings.Split(text, "\n") {
		if data, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(data, `"id"`) {
			text = data
		}
	}
	var msg map[string]any
	if err := json.Unmarshal([]byte(text), &msg); err != nil {
		t.Fatalf("%s: %v:\n%s", resp.Status, err, body)
	}
	return msg
}

// callText calls a tool in the session sid (params is the JSON of the
// call's params) and returns the text of its result, or its error.
func callText(t *testing.T, url, sid, params string) string {
	t.Helper()
	msg := sseResult(t, httpPost(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":`+params+`}`))
	var out struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	b, _ := json.Marshal(msg)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if out.Error != nil {
		return "error: " + out.Error.Message
	}
	return mcptest.Text(out.Result)
}
