package resolve

import (
	"context"
	"sort"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/protocol"
)

// Watch returns the files and directories whose change can change what
// resolving c gives, besides the config's own files: the discovery
// directories, and the programs of local tools and MCP servers. A host
// that serves the catalog watches them to resolve again.
func (r *Resolver) Watch(c config.Config) []string {
	s := r.session(context.Background())
	set := map[string]bool{}
	for _, dir := range c.Discover.Dirs {
		set[s.expand(dir)] = true
	}
	for _, name := range c.Tools.Names() {
		t := c.Tools[name]
		if !isLocal(t) || t.Command.IsZero() {
			continue
		}
		pc := protocol.NewContext(protocol.ActionSchema, s.root, t.Source.Name(name), nil, nil, t.Options)
		program, _, err := render(config.Command{Program: t.Command.Program, Shell: t.Command.Shell}, pc.Value())
		if err == nil {
			set[s.lookPath(s.absolute(program))] = true
		}
	}
	for _, srv := range c.MCPServers {
		set[s.lookPath(s.absolute(srv.Command))] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
