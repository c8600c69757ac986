package mcpserver_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
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
// subscribe and unsubscribe as a line on calls (when not nil).
type recordedOffers struct{ calls chan string }

func (o recordedOffers) record(call string) {
	if o.calls != nil {
		o.calls <- call
	}
}

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
	o.record("subscribe " + uri)
	return nil
}

func (o recordedOffers) Unsubscribe(_ context.Context, uri string) error {
	o.record("unsubscribe " + uri)
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
		// No standalone event stream (nothing here is sent outside a
		// request), and no connection kept: either holds the server's
		// shutdown at the test's end for its grace.
		tr := &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/mcp", DisableStandaloneSSE: true,
			HTTPClient: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}}
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

// TestSubscriptionsBounded: a client session subscribes to at most
// MaxSubscriptions resources at once; the next is refused with an error
// that says why, and one more fits once it unsubscribes from one.
func TestSubscriptionsBounded(t *testing.T) {
	cat, err := resolve.Build(config.Default(), resolve.Found{})
	if err != nil {
		t.Fatal(err)
	}
	s := &mcpserver.Server{Load: func(context.Context) (*mcpserver.Snapshot, error) {
		return &mcpserver.Snapshot{Runner: &call.Runner{Catalog: cat}, Offers: recordedOffers{}}, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	ct, st := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, st) }()
	defer func() { cancel(); <-done }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	subscribe := func(i int) error {
		return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "demo://" + strconv.Itoa(i)})
	}
	for i := range mcpserver.MaxSubscriptions {
		if err := subscribe(i); err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
	}
	if err := subscribe(mcpserver.MaxSubscriptions); err == nil || !strings.Contains(err.Error(), "subscribed to 10000 resources, the most strata keeps for one client") {
		t.Errorf("subscription past the bound: %v", err)
	}
	if err := subscribe(0); err != nil {
		t.Errorf("a subscription the session has: %v", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "demo://0"}); err != nil {
		t.Fatal(err)
	}
	if err := subscribe(mcpserver.MaxSubscriptions); err != nil {
		t.Errorf("a subscription after an unsubscribe: %v", err)
	}
}
