package strata

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/policy"
	"github.com/strata-config/strata/resolve"
)

// clamp clamps the workspace's model to its policies, writes the model
// back into the host's config, and reports each clamp once: a warning, or
// with Strict an error.
func (w *Workspace[P, R]) clamp(ctx context.Context) error {
	if len(w.s.policies)+len(w.s.policySources) == 0 {
		return nil
	}
	files := make([]policy.File, len(w.s.policies))
	for i, f := range w.s.policies {
		files[i] = policy.File{Path: f.path, Optional: f.optional}
	}
	set, err := policy.ReadAll(ctx, files, w.s.policySources, w.view.area)
	if err != nil {
		return err
	}
	w.policies = set
	model, clamps := set.Clamp(w.model, w.environ)
	var errs diag.Errors
	for i := range clamps {
		clamps[i].Key = append(w.s.Mount.Append(), clamps[i].Key...)
		errs = append(errs, clamps[i].Problem(w.s.strict))
	}
	if w.s.strict && len(errs) > 0 {
		return errs
	}
	// The model changes without a clamp too: a policy's bounds are set
	// where no layer set any.
	w.model, w.clamps = model, clamps
	if err := setModel(&w.loaded.Config, w.s.Mount, model); err != nil {
		return err
	}
	w.loaded.Warnings = append(w.loaded.Warnings, errs...)
	w.view.warnings = w.loaded.Warnings // Warnings says what Loaded says
	return nil
}

// Policies returns the policy layers that apply, and what they clamped.
func (w *engine) Policies() (policy.Set, []policy.Clamp) { return w.policies, w.clamps }

// setModel writes the parts of the tools model a policy clamps (tools and
// mcp_servers) into the host's config r at mount (see modelOf).
func setModel[R any](r *R, mount []string, c config.Config) error {
	if own, ok := any(r).(*config.Config); ok && len(mount) == 0 {
		*own = c
		return nil
	}
	v := reflect.ValueOf(r).Elem()
	for _, key := range mount {
		t, err := shape.Of(v.Type())
		if err != nil || t.Kind != shape.Struct {
			return fmt.Errorf("strata: Mount: not a table of the host's config")
		}
		f, ok := t.Field(key)
		if !ok {
			return fmt.Errorf("strata: Mount: the host's config has no key %s", key)
		}
		v = v.FieldByIndex(f.Index)
	}
	t, err := shape.Of(v.Type())
	if err != nil || t.Kind != shape.Struct {
		return fmt.Errorf("strata: Mount: not a table of the host's config")
	}
	for _, part := range []struct {
		key string
		src any
	}{{"tools", c.Tools}, {"mcp_servers", c.MCPServers}} {
		if f, ok := t.Field(part.key); ok {
			v.FieldByIndex(f.Index).Set(reflect.ValueOf(part.src))
		}
	}
	return nil
}

// admitTools leaves out of cat the tools the policies' tool lists do
// not admit, each with a warning that names the list and its reason.
func (w *engine) admitTools(cat *resolve.Catalog) *resolve.Catalog {
	var left diag.Errors
	out := cat.Filter(func(d resolve.Definition) bool {
		c, ok := w.policies.AdmitsTool(d.Name, resolve.FullSource(d))
		if !ok {
			c.Key = append(w.s.Mount.Append(), c.Key...)
			w.deniedMu.Lock()
			if w.denied == nil {
				w.denied = map[string]deniedTool{}
			}
			w.denied[d.Name] = deniedTool{def: d, why: c}
			w.deniedMu.Unlock()
			left = append(left, c.Problem(false))
		}
		return ok
	})
	if len(left) > 0 {
		out.Warnings = append(slices.Clone(cat.Warnings), left...)
	}
	return out
}

// deniedTool is a tool a policy's tool list leaves out, and why.
type deniedTool struct {
	def resolve.Definition
	why policy.Clamp
}

// deniedDecision is the decision of a call of a tool a policy's tool
// list leaves out; nil when none does.
func (w *engine) deniedDecision(name string) *call.Decision {
	w.deniedMu.Lock()
	t, ok := w.denied[name]
	w.deniedMu.Unlock()
	if !ok {
		if t, ok = w.leftOutServer(name); !ok {
			return nil
		}
	}
	d := &call.Decision{Tool: name, Source: t.def.Source, Server: t.def.Exec.Server, Outcome: call.VerdictLeftOut, Code: diag.CodeClamped,
		Message: name + " is left out by the policy " + t.why.Policy.String() + " (" + t.why.At() + ")",
		Reasons: []call.Reason{{Kind: "policy", Key: t.why.Policy.String(), At: t.why.At(), Reason: t.why.Reason, Detail: t.why.Detail}}}
	if t.why.Reason != "" {
		d.Message += ": " + t.why.Reason
	}
	return d
}

// leftOutServer finds the server a policy left out that the tool name
// belongs to, though the server never started to list it: the config
// gives the tool that server as its source, the server's name scheme
// makes the name, or the lock holds the tool from that server.
func (w *engine) leftOutServer(name string) (deniedTool, bool) {
	for _, c := range w.clamps {
		server, ok := leftOut(c)
		if !ok {
			continue
		}
		def := resolve.Definition{Name: name, Source: "mcp." + server}
		def.Exec.Server = server
		t := deniedTool{def: def, why: c}
		if src := w.model.Tools[name].Source; src.Kind == config.SourceMCP && src.Server == server {
			return t, true
		}
		if s := w.model.ToolNamesOf(server); strings.Contains(string(s), "{server}") {
			if _, ok := s.Tool(server, name); ok {
				return t, true
			}
		}
		if w.lockedTools()[name] == "mcp_servers."+server {
			return t, true
		}
	}
	return deniedTool{}, false
}

// leftOut returns the server a clamp leaves out, mcp_servers.<server>
// under the host's mount; false for a clamp of anything else.
func leftOut(c policy.Clamp) (server string, ok bool) {
	if len(c.Key) < 2 || c.Key[len(c.Key)-2] != "mcp_servers" || c.To != "left out" {
		return "", false
	}
	return c.Key[len(c.Key)-1], true
}
