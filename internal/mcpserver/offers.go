package mcpserver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Offers are what the MCP servers behind a catalog offer beside tools:
// resources, resource templates and prompts, named as served, and the
// requests on them, passed on to the server whose they are. The root's
// Workspace gives upstream.Aggregate.
type Offers interface {
	// Lists lists them, starting the servers that are not running; the
	// same Offers lists once.
	Lists(ctx context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, []*mcp.Prompt)
	ReadResource(ctx context.Context, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error)
	GetPrompt(ctx context.Context, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error)
	Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error)
	Subscribe(ctx context.Context, uri string) error
	Unsubscribe(ctx context.Context, uri string) error
	// Served is the URI served of the resource uri of the server named
	// server (for its notifications/resources/updated).
	Served(server, uri string) string
}

// offerMethods are the methods of what the MCP servers offer beside
// tools.
var offerMethods = map[string]bool{
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"prompts/list": true, "prompts/get": true, "completion/complete": true,
}

// offers returns the offers of the catalog served now, or nil.
func (s *Server) offers() Offers {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.current == nil {
		return nil
	}
	return s.current.Offers
}

// offersMiddleware serves what the MCP servers offer beside tools: a
// list is what the SDK's server holds, filled from the offers at the
// first request that needs them (the servers start then); a read, a
// prompt or a completion goes to the server whose it is. With no offers
// (no MCP server behind the catalog), these methods answer
// method-not-found, never an empty success.
func (s *Server) offersMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !offerMethods[method] {
			return next(ctx, method, req)
		}
		o := s.offers()
		if o == nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "strata serves no MCP server's resources or prompts here: " + method + " is not served"}
		}
		s.listOffers(ctx, o)
		switch p := req.GetParams().(type) {
		case *mcp.ReadResourceParams:
			return o.ReadResource(ctx, p)
		case *mcp.GetPromptParams:
			return o.GetPrompt(ctx, p)
		case *mcp.CompleteParams:
			return o.Complete(ctx, p)
		}
		return next(ctx, method, req) // lists and subscriptions: the SDK's
	}
}

// listOffers fills the SDK's server with what o lists, once for each o:
// what left is removed and what is new added (the SDK tells the clients
// the lists changed).
func (s *Server) listOffers(ctx context.Context, o Offers) {
	s.omu.Lock()
	defer s.omu.Unlock()
	if s.offered == o {
		return
	}
	resources, templates, prompts := o.Lists(ctx)
	s.offersListed = true
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return o.ReadResource(ctx, req.Params)
	}
	get := func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return o.GetPrompt(ctx, req.Params)
	}
	s.resourceURIs = replace(s.resourceURIs, resources, func(r *mcp.Resource) string { return r.URI },
		func(r *mcp.Resource) { s.mcp.AddResource(r, read) }, s.mcp.RemoveResources)
	s.templateURIs = replace(s.templateURIs, templates, func(t *mcp.ResourceTemplate) string { return t.URITemplate },
		func(t *mcp.ResourceTemplate) { s.mcp.AddResourceTemplate(t, read) }, s.mcp.RemoveResourceTemplates)
	s.promptNames = replace(s.promptNames, prompts, func(p *mcp.Prompt) string { return p.Name },
		func(p *mcp.Prompt) { s.mcp.AddPrompt(p, get) }, s.mcp.RemovePrompts)
	s.offered = o
}

// replace adds items (by key) and removes what of old they leave out;
// it returns the keys now served.
func replace[T any](old []string, items []T, key func(T) string, add func(T), remove func(...string)) []string {
	keep := map[string]bool{}
	for _, it := range items {
		keep[key(it)] = true
		add(it)
	}
	var gone []string
	for _, k := range old {
		if !keep[k] {
			gone = append(gone, k)
		}
	}
	remove(gone...)
	return slices.Collect(maps.Keys(keep))
}

// subscribe passes a client's resources/subscribe on to the server of the
// resource; the SDK keeps who subscribed, and [Server.ResourceUpdated]
// tells them alone. A session subscribes to a resource once, however
// often it asks, and its subscriptions end with it: a client that went
// away, or a request of protocol 2026-07-28 over HTTP, whose session is
// the request alone (the SDK could not tell it an update anyway).
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	o := s.offers()
	if o == nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "strata serves no MCP server's resources here"}
	}
	ss, uri := req.Session, req.Params.URI
	if ss == nil {
		return o.Subscribe(ctx, uri)
	}
	s.omu.Lock()
	uris := s.subscribed[ss]
	if uris[uri] {
		s.omu.Unlock()
		return nil
	}
	if uris == nil {
		if s.subscribed == nil {
			s.subscribed = map[*mcp.ServerSession]map[string]bool{}
		}
		uris = map[string]bool{}
		s.subscribed[ss] = uris
		go s.endSubscriptions(ss)
	}
	if len(uris) >= MaxSubscriptions {
		s.omu.Unlock()
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("this session is subscribed to %d resources, the most strata keeps for one client: unsubscribe from one first", MaxSubscriptions)}
	}
	uris[uri] = true
	s.omu.Unlock()
	if err := o.Subscribe(ctx, uri); err != nil {
		s.omu.Lock()
		delete(s.subscribed[ss], uri)
		s.omu.Unlock()
		return err
	}
	return nil
}

func (s *Server) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	o := s.offers()
	if o == nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "strata serves no MCP server's resources here"}
	}
	if ss := req.Session; ss != nil {
		s.omu.Lock()
		had := s.subscribed[ss][req.Params.URI]
		delete(s.subscribed[ss], req.Params.URI)
		s.omu.Unlock()
		if !had {
			return nil
		}
	}
	return o.Unsubscribe(ctx, req.Params.URI)
}

// endSubscriptions waits for the session to end, and then ends what it
// subscribed to and did not unsubscribe from (a client that went away).
func (s *Server) endSubscriptions(ss *mcp.ServerSession) {
	_ = ss.Wait()
	s.omu.Lock()
	uris := s.subscribed[ss]
	delete(s.subscribed, ss)
	s.omu.Unlock()
	o := s.offers()
	if o == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), unsubscribeTimeout)
	defer cancel()
	for uri := range uris {
		if err := o.Unsubscribe(ctx, uri); err != nil {
			s.warn(fmt.Errorf("ending a subscription of a client that went away, to %s: %w", uri, err))
		}
	}
}

// MaxSubscriptions is how many resources one client session may be
// subscribed to at once: as many as a server's list serves.
const MaxSubscriptions = 10_000

// unsubscribeTimeout bounds the unsubscriptions of a session that ended.
const unsubscribeTimeout = 10 * time.Second

// ResourceUpdated tells the clients subscribed to the resource uri of the
// MCP server named server that it changed (the server said so).
func (s *Server) ResourceUpdated(server, uri string) {
	o := s.offers()
	if o == nil || s.mcp == nil {
		return
	}
	if err := s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: o.Served(server, uri)}); err != nil {
		s.warn(fmt.Errorf("passing on notifications/resources/updated of %s: %w", server, err))
	}
}

// relistOffers lists the offers of the catalog served now again, when a
// client had them listed: the SDK tells the clients what changed.
func (s *Server) relistOffers(ctx context.Context) {
	s.omu.Lock()
	listed := s.offersListed
	s.omu.Unlock()
	if o := s.offers(); listed && o != nil {
		go s.listOffers(ctx, o)
	}
}
