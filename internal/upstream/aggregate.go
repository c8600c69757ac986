package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/tomltext"
	"github.com/strata-config/strata/partial"
)

// Naming is how strata serve offers one server's resources and prompts
// (the server's namespace, disabled_prompts and prompt_names).
//
// A server's resource URIs and prompt names are served as it gives them:
// a tool's result links the server's resources by their URIs (a
// resource_link, an embedded resource), and a client that reads them
// reads the server's. A namespace puts "<namespace>+" before the URIs (a
// URI scheme of its own: "docs+file:///a.md") and "<namespace>." before
// the prompt names, and strata takes it off again before a request
// reaches the server; a renamed prompt is served under its new name as
// it is.
type Naming struct {
	Namespace       string
	DisabledPrompts []string
	PromptNames     map[string]string
}

// URI is the URI (or URI template) uri of the server as served.
func (n Naming) URI(uri string) string {
	if n.Namespace == "" {
		return uri
	}
	return n.Namespace + "+" + uri
}

// serverURI is the server's URI of the URI served, and whether it is one
// of the server's: with a namespace, it must start with it.
func (n Naming) serverURI(served string) (string, bool) {
	if n.Namespace == "" {
		return served, true
	}
	return strings.CutPrefix(served, n.Namespace+"+")
}

// Prompt is the name the server's prompt name is served as; ok is false
// for a prompt left out.
func (n Naming) Prompt(name string) (served string, ok bool) {
	if slices.Contains(n.DisabledPrompts, name) {
		return "", false
	}
	if to, ok := n.PromptNames[name]; ok {
		return to, true
	}
	if n.Namespace != "" {
		return n.Namespace + "." + name, true
	}
	return name, true
}

// Aggregate is what the MCP servers of a catalog offer beside tools, as
// strata serve offers them to its clients: their resources, resource
// templates and prompts, each named as the server's [Naming] says, and
// the requests on them (resources/read, prompts/get, completion/complete,
// resources/subscribe) passed on to the server whose they are, named as
// that server names them.
//
// A URI, a URI template or a prompt name that two servers offer (as
// served) is neither's: it is left out, with one warning that names both
// servers and the fix (a namespace, or prompt_names). A server that does
// not start, or does not answer, offers nothing (a warning says why); the
// others' are served.
type Aggregate struct {
	Servers *Servers
	// Specs are the servers, enabled, by name order.
	Specs []Server
	// Warn is told the problems that leave something out; nil drops
	// them.
	Warn func(error)

	once   sync.Once
	listed *Listing
}

// Listing is what the servers offer, as served.
type Listing struct {
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate
	Prompts   []*mcp.Prompt

	resources map[string]owned // by URI served
	templates []ownedTemplate
	prompts   map[string]owned // by name served
}

// owned is a resource or a prompt of a server: the server, and the
// server's own URI or name.
type owned struct {
	spec Server
	name string
}

type ownedTemplate struct {
	owned
	served string // the template as served
	re     *uritemplate.Template
}

// List lists what the servers offer, starting those not running, once:
// later calls return the same listing (a new Aggregate lists again).
func (a *Aggregate) List(ctx context.Context) *Listing {
	// A client that gives up does not leave the others an empty listing.
	a.once.Do(func() { a.listed = a.list(context.WithoutCancel(ctx)) })
	return a.listed
}

// Lists returns what the servers offer, as served (see [Aggregate.List]).
func (a *Aggregate) Lists(ctx context.Context) ([]*mcp.Resource, []*mcp.ResourceTemplate, []*mcp.Prompt) {
	l := a.List(ctx)
	return l.Resources, l.Templates, l.Prompts
}

func (a *Aggregate) warn(err error) {
	if a.Warn != nil {
		a.Warn(err)
	}
}

// key is the config key of a server, for messages: [mcp_servers.name].
func key(name string) string {
	return "[" + tomltext.Path(partial.Path{"mcp_servers", name}) + "]"
}

func (a *Aggregate) list(ctx context.Context) *Listing {
	offers := make([]*offersOf, len(a.Specs))
	var wg sync.WaitGroup
	for i, s := range a.Specs {
		wg.Go(func() {
			o, err := a.Servers.Offers(ctx, s)
			offers[i] = &offersOf{o: o, err: err}
		})
	}
	wg.Wait()
	l := &Listing{resources: map[string]owned{}, prompts: map[string]owned{}}
	resources := claims[*mcp.Resource]{}
	templates := claims[*mcp.ResourceTemplate]{}
	prompts := claims[*mcp.Prompt]{}
	for i, s := range a.Specs {
		o := offers[i]
		if o.err != nil {
			err := o.err
			var down *DownError
			if errors.As(err, &down) {
				// Its cause, said once (the time of its retry changes).
				err = down.Err
			}
			a.warn(fmt.Errorf("the MCP server %s offers no resources or prompts: %w", s.Name, err))
			continue
		}
		for method, cut := range o.o.Cuts {
			a.warn(fmt.Errorf("the MCP server %s's %s went past its budget of %d %s: its first %d are served", s.Name, method, cut.Bound, cutUnit(cut.By), cut.Kept))
		}
		n := s.Offer
		for _, r := range o.o.Resources {
			served := n.URI(r.URI)
			if u, err := url.Parse(served); err != nil || u.Scheme == "" {
				a.warn(fmt.Errorf("the MCP server %s's resource %q is not served: its URI is not an absolute URI", s.Name, r.URI))
				continue
			}
			c := *r
			c.URI = served
			resources.add(served, s, r.URI, &c)
		}
		for _, t := range o.o.Templates {
			served := n.URI(t.URITemplate)
			if _, err := uritemplate.New(served); err != nil {
				a.warn(fmt.Errorf("the MCP server %s's resource template %q is not served: %v", s.Name, t.URITemplate, err))
				continue
			}
			c := *t
			c.URITemplate = served
			templates.add(served, s, t.URITemplate, &c)
		}
		for _, p := range o.o.Prompts {
			served, ok := n.Prompt(p.Name)
			if !ok {
				continue
			}
			c := *p
			c.Name = served
			prompts.add(served, s, p.Name, &c)
		}
	}
	var shares collisions
	defer shares.warn(a)
	for _, k := range resources.order {
		c := resources.by[k]
		if shared(&shares, "resource", k, c.owners) {
			continue
		}
		l.Resources = append(l.Resources, c.item)
		l.resources[k] = c.owners[0]
	}
	for _, k := range templates.order {
		c := templates.by[k]
		if shared(&shares, "resource template", k, c.owners) {
			continue
		}
		l.Templates = append(l.Templates, c.item)
		re, _ := uritemplate.New(k)
		l.templates = append(l.templates, ownedTemplate{owned: c.owners[0], served: k, re: re})
	}
	for _, k := range prompts.order {
		c := prompts.by[k]
		if shared(&shares, "prompt", k, c.owners) {
			continue
		}
		l.Prompts = append(l.Prompts, c.item)
		l.prompts[k] = c.owners[0]
	}
	return l
}

type offersOf struct {
	o   *mcpclient.Offers
	err error
}

func cutUnit(by string) string {
	if by == "tools" {
		return "items"
	}
	return by
}

// claims are the servers that offer each thing served, in the order
// first offered.
type claims[T any] struct {
	by    map[string]*claim[T]
	order []string
}

type claim[T any] struct {
	item   T
	owners []owned
}

func (c *claims[T]) add(served string, s Server, name string, item T) {
	if c.by == nil {
		c.by = map[string]*claim[T]{}
	}
	cl := c.by[served]
	if cl == nil {
		cl = &claim[T]{item: item}
		c.by[served] = cl
		c.order = append(c.order, served)
	}
	if !slices.ContainsFunc(cl.owners, func(o owned) bool { return o.spec.Name == s.Name }) {
		cl.owners = append(cl.owners, owned{spec: s, name: name})
	}
}

// shared reports whether a thing served is several servers': then it is
// neither's, and it is recorded in c for one warning a set of servers.
func shared(c *collisions, what, served string, owners []owned) bool {
	if len(owners) < 2 {
		return false
	}
	var names []string
	for _, o := range owners {
		names = append(names, o.spec.Name)
	}
	k := collision{what: what, servers: strings.Join(names, "\x00")}
	if c.by == nil {
		c.by = map[collision][]string{}
	}
	if c.by[k] == nil {
		c.order = append(c.order, k)
	}
	c.by[k] = append(c.by[k], served)
	return true
}

// collisions are the things served that several servers offer, by kind
// and set of servers.
type collisions struct {
	by    map[collision][]string
	order []collision
}

type collision struct{ what, servers string }

// maxShared is how many names a warning of a collision quotes.
const maxShared = 5

// warn says, once for each kind and set of servers, what they share, and
// the fix.
func (c *collisions) warn(a *Aggregate) {
	for _, k := range c.order {
		names := strings.Split(k.servers, "\x00")
		var keys []string
		for _, n := range names {
			keys = append(keys, key(n))
		}
		verb := "all offer"
		if len(names) == 2 {
			verb = "both offer"
		}
		shared := c.by[k]
		var quoted []string
		for _, s := range shared[:min(len(shared), maxShared)] {
			quoted = append(quoted, fmt.Sprintf("%q", s))
		}
		list := strings.Join(quoted, ", ")
		if len(shared) > maxShared {
			list += fmt.Sprintf(" and %d more", len(shared)-maxShared)
		}
		what, them := k.what, "it is"
		if len(shared) > 1 {
			what, them = k.what+"s", "they are"
		}
		fix := "set namespace under " + strings.Join(keys, " or ")
		if k.what == "prompt" {
			fix += ", or rename with prompt_names"
		}
		a.warn(fmt.Errorf("the MCP servers %s %s the %s %s, so %s served from none of them; %s", strings.Join(names, " and "), verb, what, list, them, fix))
	}
}

// errNotFound is the answer to a request for a resource or a prompt no
// server offers; the code is MCP's for a resource not found.
func errNotFound(what, name string) error {
	return &jsonrpc.Error{Code: CodeResourceNotFound, Message: fmt.Sprintf("no MCP server behind strata offers the %s %q", what, name)}
}

// CodeResourceNotFound is MCP's JSON-RPC error code for a resource (or a
// prompt) that does not exist.
const CodeResourceNotFound = -32002

// resourceOwner finds the server of a URI served: the resource listed
// under it; else the server whose namespace it starts with; else the
// server of the one template it matches; else the one server without a
// namespace that offers resources (a server may link resources it does
// not list).
func (a *Aggregate) resourceOwner(ctx context.Context, uri string) (owned, bool) {
	l := a.List(ctx)
	if o, ok := l.resources[uri]; ok {
		return o, true
	}
	for _, s := range a.Specs {
		if s.Offer.Namespace != "" {
			if name, ok := s.Offer.serverURI(uri); ok {
				return owned{spec: s, name: name}, true
			}
		}
	}
	var match []ownedTemplate
	for _, t := range l.templates {
		if t.re.Regexp().MatchString(uri) {
			match = append(match, t)
		}
	}
	if len(match) == 1 {
		name, _ := match[0].spec.Offer.serverURI(uri)
		return owned{spec: match[0].spec, name: name}, true
	}
	var plain []Server
	for _, s := range a.Specs {
		if s.Offer.Namespace == "" && a.offersResources(l, s.Name) {
			plain = append(plain, s)
		}
	}
	if len(match) == 0 && len(plain) == 1 {
		return owned{spec: plain[0], name: uri}, true
	}
	return owned{}, false
}

// offersResources reports whether the server name offers a resource or a
// template in l.
func (a *Aggregate) offersResources(l *Listing, name string) bool {
	for _, o := range l.resources {
		if o.spec.Name == name {
			return true
		}
	}
	for _, t := range l.templates {
		if t.spec.Name == name {
			return true
		}
	}
	return false
}

// ReadResource reads a resource by the URI served, from its server; the
// contents' URIs are served ones.
func (a *Aggregate) ReadResource(ctx context.Context, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	o, ok := a.resourceOwner(ctx, p.URI)
	if !ok {
		return nil, errNotFound("resource", p.URI)
	}
	q := *p
	q.URI = o.name
	res, err := a.Servers.ReadResource(ctx, o.spec, &q)
	if err != nil {
		return nil, err
	}
	if o.spec.Offer.Namespace != "" {
		for _, c := range res.Contents {
			if c != nil {
				c.URI = o.spec.Offer.URI(c.URI)
			}
		}
	}
	return res, nil
}

// GetPrompt gets a prompt by the name served, from its server.
func (a *Aggregate) GetPrompt(ctx context.Context, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	o, ok := a.List(ctx).prompts[p.Name]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no MCP server behind strata offers the prompt %q", p.Name)}
	}
	q := *p
	q.Name = o.name
	return a.Servers.GetPrompt(ctx, o.spec, &q)
}

// Complete completes an argument of a prompt or a resource template
// served, on its server.
func (a *Aggregate) Complete(ctx context.Context, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if p.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete needs a ref"}
	}
	l := a.List(ctx)
	var o owned
	ref := *p.Ref
	switch ref.Type {
	case "ref/prompt":
		po, ok := l.prompts[ref.Name]
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no MCP server behind strata offers the prompt %q", ref.Name)}
		}
		o, ref.Name = po, po.name
	case "ref/resource":
		i := slices.IndexFunc(l.templates, func(t ownedTemplate) bool { return t.served == ref.URI })
		switch {
		case i >= 0:
			o = l.templates[i].owned
		default:
			ro, ok := a.resourceOwner(ctx, ref.URI)
			if !ok {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no MCP server behind strata offers the resource template %q", ref.URI)}
			}
			o = ro
		}
		ref.URI = o.name
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown ref type %q: expected ref/prompt or ref/resource", ref.Type)}
	}
	q := *p
	q.Ref = &ref
	return a.Servers.Complete(ctx, o.spec, &q)
}

// Subscribe subscribes to a resource by the URI served, on its server.
func (a *Aggregate) Subscribe(ctx context.Context, uri string) error {
	o, ok := a.resourceOwner(ctx, uri)
	if !ok {
		return errNotFound("resource", uri)
	}
	return a.Servers.Subscribe(ctx, o.spec, o.name)
}

// Unsubscribe ends a subscription to a resource by the URI served.
func (a *Aggregate) Unsubscribe(ctx context.Context, uri string) error {
	o, ok := a.resourceOwner(ctx, uri)
	if !ok {
		return errNotFound("resource", uri)
	}
	return a.Servers.Unsubscribe(ctx, o.spec, o.name)
}

// Served returns the URI served of the resource uri of the server name,
// for its notifications/resources/updated.
func (a *Aggregate) Served(name, uri string) string {
	for _, s := range a.Specs {
		if s.Name == name {
			return s.Offer.URI(uri)
		}
	}
	return uri
}
