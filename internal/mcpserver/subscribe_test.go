package mcpserver_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/internal/mcpserver"
	"github.com/strata-config/strata/resolve"
)

// recordedOffers are offers with no resources that pass on each
// subscribe and unsubscribe as a line on calls.
type recordedOffers struct{ calls chan string }

func (o recordedOffers) Lists(context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, []*mcp.Prompt) {
	return nil, nil, nil
}

func (o recordedOffers) ReadResource(context.Context, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	return nil, errors.New("no resources")
}

func (o recordedOffers) GetPrompt(context.Context, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	return nil, errors.New("no prompts")
}

func (o recordedOffers) Complete(context.Context, *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return nil, errors.New("no completions")
}

func (o recordedOffers) Subscribe(_ context.Context, uri string) error {
	o.calls <- "subscribe " + uri
	return nil
}

func (o recordedOffers) Unsubscribe(_ context.Context, uri string) error {
	o.calls <- "unsubscribe " + uri
	return nil
}

func (o recordedOffers) Served(_, uri string) string { return uri }

// TestSubscriptionsEndWithTheSession: over HTTP, where clients share each
// server, a client that subscribes to a resource twice subscribes once,
// and one that goes away without unsubscribing takes its subscriptions
// with it: each is passed on as an unsubscribe, so the server's count of
// subscribers drops (it stayed up, and the server went on sending updates
// nobody wanted). One that unsubscribes from what it never subscribed to
// changes nothing.
func TestSubscriptionsEndWithTheSession(t *testing.T) {
	const doc, other = "demo://doc", "demo://other"
	cat, err := resolve.Build(config.Default(), resolve.Found{})
	if err != nil {
		t.Fatal(err)
	}
	offers := recordedOffers{calls: make(chan string, 100)}
	s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) {
		return &mcpserver.Snapshot{Runner: &call.Runner{Catalog: cat}, Offers: offers}, nil
	}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.ServeHTTP(ctx, ln, func(h http.Handler) http.Handler { return h }) }()
	defer func() {
		cancel()
		<-served
	}()
	connect := func() *mcp.ClientSession {
		tr := &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp"}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	// next returns the next call passed on.
	next := func() string {
		select {
		case c := <-offers.calls:
			return c
		case <-ctx.Done():
			t.Fatal("no subscription was passed on")
			return ""
		}
	}
	a, b := connect(), connect()
	defer b.Close()
	for _, uri := range []string{doc, doc, other} {
		if err := a.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: doc}); err != nil {
		t.Fatal(err)
	}
	if err := b.Subscribe(ctx, &mcp.SubscribeParams{URI: doc}); err != nil {
		t.Fatal(err)
	}
	got := []string{next(), next(), next()}
	want := []string{"subscribe " + doc, "subscribe " + other, "subscribe " + doc}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("passed on while both clients subscribe (-want +got):\n%s", diff)
	}
	a.Close() // without unsubscribing
	got = []string{next(), next()}
	if got[0] > got[1] {
		got[0], got[1] = got[1], got[0]
	}
	want = []string{"unsubscribe " + doc, "unsubscribe " + other}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("passed on when the first client went away (-want +got):\n%s", diff)
	}
	if err := b.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: doc}); err != nil {
		t.Fatal(err)
	}
	if c := next(); c != "unsubscribe "+doc {
		t.Errorf("the second client's unsubscribe passed on %q, want %q", c, "unsubscribe "+doc)
	}
}
