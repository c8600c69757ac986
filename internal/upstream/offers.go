package upstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-config/strata/internal/mcpclient"
)

// session runs f on the running session of the server of s, starting it
// when it is not running; a nil *Servers starts the server for f alone.
func (p *Servers) session(ctx context.Context, s Server, f func(sess *mcpclient.Session) error) error {
	if p == nil {
		sess, err := Start(ctx, s, nil)
		if err != nil {
			return startFailed(s, err)
		}
		defer sess.Close()
		return f(sess)
	}
	l, _, err := p.get(ctx, s, func() *Answer { return p.cached(s) })
	if err != nil {
		return err
	}
	return f(l.sess)
}

// within runs f under the tool timeout of s, and names the server in a
// failure that is not the server's own answer (a JSON-RPC error).
func within[T any](ctx context.Context, p *Servers, s Server, what string, f func(ctx context.Context, sess *mcpclient.Session) (T, error)) (T, error) {
	var out T
	err := p.session(ctx, s, func(sess *mcpclient.Session) error {
		cctx, cancel := context.WithTimeout(ctx, s.ToolTimeout)
		defer cancel()
		var err error
		out, err = f(cctx, sess)
		if err != nil && !isRPC(err) && ctx.Err() == nil {
			select {
			case <-sess.Done():
				return &Error{Msg: fmt.Sprintf("the server %s ended during %s", s.Name, what), Err: err}
			default:
			}
			if cctx.Err() != nil {
				return &Error{Msg: fmt.Sprintf("the server %s did not answer %s within %v", s.Name, what, s.ToolTimeout), Err: err}
			}
		}
		return err
	})
	return out, err
}

// Offers lists what the server of s offers beside tools (its resources,
// resource templates and prompts), each list within the budget of s, on
// the running server (started when it is not running).
func (p *Servers) Offers(ctx context.Context, s Server) (*mcpclient.Offers, error) {
	return within(ctx, p, s, "its listing", func(ctx context.Context, sess *mcpclient.Session) (*mcpclient.Offers, error) {
		return sess.Offers(ctx, s.Budget)
	})
}

// ReadResource reads the resource uri (the server's own URI) of the
// server of s.
func (p *Servers) ReadResource(ctx context.Context, s Server, params *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	return within(ctx, p, s, "resources/read", func(ctx context.Context, sess *mcpclient.Session) (*mcp.ReadResourceResult, error) {
		return sess.ReadResource(ctx, params)
	})
}

// GetPrompt gets a prompt of the server of s, by the server's name.
func (p *Servers) GetPrompt(ctx context.Context, s Server, params *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	return within(ctx, p, s, "prompts/get", func(ctx context.Context, sess *mcpclient.Session) (*mcp.GetPromptResult, error) {
		return sess.GetPrompt(ctx, params)
	})
}

// Complete asks the server of s to complete an argument.
func (p *Servers) Complete(ctx context.Context, s Server, params *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return within(ctx, p, s, "completion/complete", func(ctx context.Context, sess *mcpclient.Session) (*mcp.CompleteResult, error) {
		return sess.Complete(ctx, params)
	})
}

// Subscribe subscribes to the resource uri of the server of s: the first
// subscription to it sends resources/subscribe, the others count (see
// [Servers.Unsubscribe]). The server's notifications/resources/updated
// go to OnUpdated.
func (p *Servers) Subscribe(ctx context.Context, s Server, uri string) error {
	if p == nil {
		return fmt.Errorf("subscribing to %s: the server %s does not keep running", uri, s.Name)
	}
	key := s.id() + "\x00" + uri
	p.mu.Lock()
	n := p.subs[key]
	p.mu.Unlock()
	if n == 0 {
		_, err := within(ctx, p, s, "resources/subscribe", func(ctx context.Context, sess *mcpclient.Session) (struct{}, error) {
			return struct{}{}, sess.Subscribe(ctx, uri)
		})
		if err != nil {
			return err
		}
	}
	p.mu.Lock()
	if p.subs == nil {
		p.subs = map[string]int{}
	}
	p.subs[key]++
	p.mu.Unlock()
	return nil
}

// Unsubscribe ends one subscription to uri of the server of s; the last
// one sends resources/unsubscribe.
func (p *Servers) Unsubscribe(ctx context.Context, s Server, uri string) error {
	if p == nil {
		return nil
	}
	key := s.id() + "\x00" + uri
	p.mu.Lock()
	n := p.subs[key]
	switch {
	case n > 1:
		p.subs[key]--
	case n == 1:
		delete(p.subs, key)
	}
	p.mu.Unlock()
	if n != 1 {
		return nil
	}
	_, err := within(ctx, p, s, "resources/unsubscribe", func(ctx context.Context, sess *mcpclient.Session) (struct{}, error) {
		return struct{}{}, sess.Unsubscribe(ctx, uri)
	})
	return err
}

// updated passes on a notifications/resources/updated of the server name.
func (p *Servers) updated(name, uri string) {
	if f := p.OnUpdated; f != nil {
		f(name, uri)
	}
}

// isRPC reports whether err is a server's answer: a JSON-RPC error.
func isRPC(err error) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e)
}
