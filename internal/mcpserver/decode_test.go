package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeSeeds are messages a client sends, and the unusual ones that
// strata leaves to the SDK's decoder.
var decodeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"tools/list"}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"method":"ping","id":0,"jsonrpc":"2.0","params":{}}`,
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params": { "name" : "echo" ,"arguments":[ 1, 2 ] } }`,
	`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"\u0032.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
	`{"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":3}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"\u006dethod":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}`,
	`{"jsonrpc":"2.0","id":1,"id":"x","method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"pi\nng\u00e9"}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":"","method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`"ping"`,
	`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`,
}

// FuzzDecode holds strata's decoding of requests to the SDK's: whatever
// decodeRequest decodes, jsonrpc.DecodeMessage decodes to the same
// request.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) {
			return // Read answers such a line before decoding
		}
		got, ok := decodeRequest(line)
		if !ok {
			return
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			t.Fatalf("strata decodes %s, the SDK fails: %v", line, err)
		}
		want, isReq := msg.(*jsonrpc.Request)
		if !isReq {
			t.Fatalf("strata decodes %s as a request, the SDK as a %T", line, msg)
		}
		if got.Method != want.Method || got.ID.Raw() != want.ID.Raw() || !bytes.Equal(got.Params, want.Params) {
			t.Fatalf("%s:\nstrata: %q %#v %s\nSDK:    %q %#v %s", line, got.Method, got.ID.Raw(), got.Params, want.Method, want.ID.Raw(), want.Params)
		}
	})
}

// TestDecode checks which messages strata decodes itself: the plain
// requests and notifications; the rest go to the SDK.
func TestDecode(t *testing.T) {
	var got []bool
	for _, s := range decodeSeeds {
		_, ok := decodeRequest([]byte(s))
		got = append(got, ok)
	}
	want := []bool{true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, false, true, true, true, false, false, true, false, false, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decoded by strata (-want +got):\n%s", diff)
	}
}
