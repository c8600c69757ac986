package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/resolve"
)

// serveHTTPBare serves the default config's empty catalog over HTTP (no
// guard) until the test ends, and returns the URL of its MCP endpoint.
func serveHTTPBare(t *testing.T) string {
	t.Helper()
	cat, err := resolve.Build(config.Default(), resolve.Found{})
	if err != nil {
		t.Fatal(err)
	}
	return serveCatalog(t, cat)
}

// serveCatalog serves cat over HTTP (no guard) until the test ends, and
// returns the URL of its MCP endpoint.
func serveCatalog(t *testing.T, cat *resolve.Catalog) string {
	t.Helper()
	s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) {
		return &mcpserver.Snapshot{Runner: &call.Runner{Catalog: cat}}, nil
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeHTTP(ctx, ln, nil) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

// answer is what a client can tell of how a POST was answered.
type answer struct {
	Status   int
	Session  bool   // the SDK opened a session (Mcp-Session-Id)
	Identity bool   // strata answered server/identity
	ID       string // the JSON-RPC response's id
	Code     int    // its error's code; 0 for a result
	Text     string // a response that is not JSON-RPC (the SDK's plain refusals), its first line
}

// postMessage posts body to url as a client without a session does, and
// returns how it was answered.
func postMessage(t *testing.T, url, body string) answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a safety net
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	a := answer{Status: res.StatusCode, Session: res.Header.Get("Mcp-Session-Id") != ""}
	// One message: the JSON body, or the first data line of an event stream.
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	var msg string
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && d != "" { // not the priming event
				msg = d
				break
			}
			continue
		}
		msg = line
		break
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			ServerID string `json:"server_id"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(msg), &m) != nil || (m.Result == nil && m.Error == nil) {
		a.Text = msg
		return a
	}
	a.ID = string(m.ID)
	a.Identity = m.Result != nil && m.Result.ServerID != ""
	if m.Error != nil {
		a.Code = m.Error.Code
	}
	return a
}

// TestServeHTTPReadsAsTheSDK: strata serve --http reads a POST's message
// (is it server/identity, which strata answers; which protocol it speaks,
// which decides the SDK handler it goes to) as the SDK, which acts on
// it, reads it: a hostile client cannot have strata decide on one
// message and the SDK act on another. A message the two could read
// differently (a member named twice, a second value after it) is refused
// as a parse error, with what is wrong. Each case's body is answered as
// the body the SDK reads it as is (sdkReads), or refused.
func TestServeHTTPReadsAsTheSDK(t *testing.T) {
	t.Parallel()
	url := serveHTTPBare(t)
	const (
		identity = `"method":"server/identity"`
		newMeta  = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`
		// initialize's params, but for _meta
		initialize = `"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}`
	)
	refused := answer{Status: http.StatusBadRequest, ID: "null", Code: -32700}
	tests := []struct {
		name, body string
		sdkReads   string // the message as the SDK reads it
		want       *answer
	}{
		// Held before: both readers unescape names, and take the last of
		// a name given twice (now refused).
		{name: "escaped name", body: `{"jsonrpc":"2.0","id":1,"me\u0074hod":"server/identity"}`, sdkReads: `{"jsonrpc":"2.0","id":1,` + identity + `}`},
		// The SDK matches names exactly; encoding/json, which strata read
		// with, ignores their case.
		{name: "method in capitals beside method", body: `{"jsonrpc":"2.0","id":1,"method":"ping","METHOD":"server/identity"}`, sdkReads: `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
		{name: "method in capitals alone", body: `{"jsonrpc":"2.0","id":1,"Method":"server/identity"}`, sdkReads: `{"jsonrpc":"2.0","id":1}`},
		{name: "id in capitals", body: `{"jsonrpc":"2.0","ID":1,` + identity + `}`, sdkReads: `{"jsonrpc":"2.0",` + identity + `}`},
		// An initialize the SDK reads as of protocol 2025-11-25 opens a
		// session; strata took it for one of 2026-07-28, which has none.
		{name: "_meta in capitals", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + initialize + `,"_META":` + newMeta[9:] + `}`, sdkReads: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + initialize + `}}`},
		{name: "params in capitals", body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + initialize + `},"Params":` + newMeta + `}`, sdkReads: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + initialize + `}}`},
		// Names given twice: the readers could take different ones
		// (encoding/json merges an object given twice, the SDK takes the
		// last): refused.
		{name: "params twice", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":` + newMeta + `,"params":{}}`, want: &refused},
		{name: "_meta twice", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":{}}}`, want: &refused},
		{name: "method twice", body: `{"jsonrpc":"2.0","id":1,"method":"ping",` + identity + `}`, want: &refused},
		{name: "a name twice deep inside", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":{"b":1,"b":2}}}`, want: &refused},
		// The SDK reads the first value of a body and ignores the rest.
		{name: "a value after the message", body: `{"jsonrpc":"2.0","id":1,` + identity + `} {"x":1}`, want: &refused},
		{name: "bytes after the message", body: `{"jsonrpc":"2.0","id":1,` + identity + `}xx`, want: &refused},
		// What the SDK refuses, strata does not answer either.
		{name: "identity of JSON-RPC 1.0", body: `{"jsonrpc":"1.0","id":1,` + identity + `}`, sdkReads: `{"jsonrpc":"1.0","id":1,"method":"ping"}`},
		{name: "identity without jsonrpc", body: `{"id":1,` + identity + `}`, sdkReads: `{"id":1,"method":"ping"}`},
		{name: "identity with a boolean id", body: `{"jsonrpc":"2.0","id":true,` + identity + `}`, sdkReads: `{"jsonrpc":"2.0","id":true,"method":"ping"}`},
		{name: "identity with an object id", body: `{"jsonrpc":"2.0","id":{},` + identity + `}`, sdkReads: `{"jsonrpc":"2.0","id":{},"method":"ping"}`},
		// The SDK reads 1,000 levels, and refuses a message deeper.
		{name: "identity nested as deep as the SDK reads", body: `{"jsonrpc":"2.0","id":1,` + identity + `,"x":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`, sdkReads: `{"jsonrpc":"2.0","id":1,` + identity + `}`},
		{name: "identity nested past the SDK's depth", body: `{"jsonrpc":"2.0","id":1,` + identity + `,"x":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`, sdkReads: `{"jsonrpc":"2.0","id":1,"method":"ping","x":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`},
		{name: "nested past the tokenizer's depth", body: `{"jsonrpc":"2.0","id":1,` + identity + `,"x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`, want: &refused},
		// Held: a batch is the SDK's, and invalid UTF-8 is data.
		{name: "identity in a batch", body: `[{"jsonrpc":"2.0","id":1,` + identity + `}]`, want: &answer{Status: http.StatusBadRequest, Text: `JSON RPC not handled: "server/identity" unsupported`}},
		{name: "invalid UTF-8 in the method", body: "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/identity\xff\"}", want: &answer{Status: http.StatusBadRequest, Text: "JSON RPC not handled: \"server/identity\ufffd\" unsupported"}},
		{name: "invalid UTF-8 beside identity", body: "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"x\":\"\xfe\"," + identity + "}", sdkReads: `{"jsonrpc":"2.0","id":"\ufffd",` + identity + `}`},
		{name: "a string id", body: `{"jsonrpc":"2.0","id":"a",` + identity + `}`, sdkReads: `{"jsonrpc":"2.0","id":"a",` + identity + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := postMessage(t, url, tt.body)
			want := tt.want
			if want == nil {
				w := postMessage(t, url, tt.sdkReads)
				want = &w
			}
			if got.Code == -32700 && got.Text == "" {
				want.Text = "" // the refusal's message is checked elsewhere
			}
			if diff := cmp.Diff(*want, got); diff != "" {
				t.Errorf("%s\nanswered (-as the SDK reads it +got):\n%s", tt.body, diff)
			}
		})
	}
}

// TestServeHTTPChecksHeaderAnnotations: a call over streamable HTTP of
// protocol 2026-07-28 carries the arguments a tool's schema annotates
// with x-mcp-header as Mcp-Param headers too (for a gateway on the way to
// route by), and the SDK's server refuses one whose header and argument
// differ, however the annotation's name is written (escapes and all,
// which a client reads as the annotation).
func TestServeHTTPChecksHeaderAnnotations(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"x-mcp-header", `x-mcp-\u0068eader`} {
		t.Run(name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"region":{"type":"string","` + name + `":"Region"}}}`
			found := resolve.Found{Described: map[string]resolve.Described{"t": {Discovered: resolve.Discovered{Name: "t", Description: "A tool.", InputSchema: resolve.MustSchema(schema)}, Path: "/nonexistent/t"}}}
			cat, err := resolve.Build(config.Default(), found)
			if err != nil {
				t.Fatal(err)
			}
			url := serveCatalog(t, cat)
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"region":"eu"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
			for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
				"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "t", "Mcp-Param-Region": "us"} {
				req.Header.Set(k, v)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "Mcp-Param-Region header value 'us' does not match body value") {
				t.Errorf("a call whose header says us and argument eu: %d %s", res.StatusCode, body)
			}
		})
	}
}
