package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestElicitForm: each kind of field of a form, asked again until the
// answer is of its type; Enter takes a default or leaves an optional
// field out; n declines, stdin ending cancels, a URL is declined.
func TestElicitForm(t *testing.T) {
	const form = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{
		"age":{"type":"integer","title":"Age"},
		"city":{"type":"string","default":"Oslo"},
		"colour":{"type":"string","enum":["red","blue"]},
		"hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Batman"}],"default":"h1"},
		"ok":{"type":"boolean"},
		"pets":{"type":"array","items":{"type":"string","enum":["cat","dog"]}},
		"score":{"type":"number","default":1.5},
		"nick":{"type":"string"}},
		"required":["age","colour","ok"]}}`
	for _, tt := range []struct {
		name, params, stdin, want string
		asked                     []string // in what was written
	}{
		{"accepted", form, "x\n\n41\n\nfuchsia\n2\n\nyes\ncat, dog\n\n\n\n", `{"action":"accept","content":{"age":41,"city":"Oslo","colour":"blue","hero":"h1","ok":true,"pets":["cat","dog"],"score":1.5}}`,
			[]string{"The MCP server s asks: Who are you?\n", "Please answer with a whole number.\n", "Please answer: age is required.\n", "s asks: city: [Enter: \"Oslo\"] \n",
				"Please answer with one of the options.\n", "s asks: nick: [Enter: leave it out] \n", "s asks: pets, separated by commas (of \"cat\", \"dog\"): [Enter: leave it out] cat, dog\n",
				"s asks: hero (h1 = Superman, h2 = Batman): [Enter: \"h1\"] (one of h1, h2) \n",
				"Send these answers to s? [Y/n] \n"}},
		{"a number asked again", `{"message":"m","requestedSchema":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}}`, "many\n2.5\ny\n", `{"action":"accept","content":{"n":2.5}}`,
			[]string{"Please answer with a number.\n"}},
		{"optional options left out", `{"message":"m","requestedSchema":{"type":"object","properties":{"c":{"type":"string","enum":["a","b"]},"b":{"type":"boolean"}}}}`, "\n\n\n", `{"action":"accept","content":{}}`,
			[]string{"s asks: c: [Enter: leave it out] (one of a, b) \n", "s asks: b: [Enter: leave it out] (yes or no) \n"}},
		{"declined", form, "1\n\nred\n\nno\n\n\n\nn\n", `{"action":"decline"}`, nil},
		{"stdin ends", form, "1\n", `{"action":"cancel"}`, nil},
		{"a URL is declined", `{"mode":"url","message":"Sign in","url":"https://example.com","elicitationId":"e"}`, "", `{"action":"decline"}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w bytes.Buffer
			got, err := elicitForm(&w, bufio.NewReader(strings.NewReader(tt.stdin)), true)(context.Background(), "s", json.RawMessage(tt.params))
			if err != nil {
				t.Fatal(err)
			}
			var g, wnt any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal([]byte(tt.want), &wnt)
			if diff := cmp.Diff(wnt, g); diff != "" {
				t.Errorf("answer (-want +got):\n%s\nasked:\n%s", diff, w.String())
			}
			for _, a := range tt.asked {
				if !strings.Contains(w.String(), a) {
					t.Errorf("did not write %q:\n%s", a, w.String())
				}
			}
		})
	}
}
