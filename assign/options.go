package assign

import (
	"strings"

	"github.com/strata-config/strata/internal/limits"
	"github.com/strata-config/strata/partial"
)

// An Option sets a limit on what [Parse], [Env] and [Layer] accept, or
// what [Env] reads names against. Without one, the defaults of
// codec.Limits apply; a loader passes on its own.
type Option interface{ apply(*options) }

// option is an [Option] made of a function.
type option func(*options)

func (f option) apply(o *options) { f(o) }

type options struct {
	depth, quote int
	known        map[string][]string // by the path of their map, as text
	except       []string            // names, and prefixes ending in '*'
}

// MaxDepth bounds how deep an assignment may nest: its key path, with the
// JSON value under it (default 1,000; see codec.Limits.Depth).
func MaxDepth(n int) Option { return option(func(o *options) { o.depth = n }) }

// MaxQuote bounds how many characters of a key, a value or a variable's
// name a message quotes (default 100; see codec.Limits.Quote).
func MaxQuote(n int) Option { return option(func(o *options) { o.quote = n }) }

// Known declares keys of the map at path (tools) besides the entries of
// the layer [Env] reads names against: the tools a host implements or
// discovered. A name is read through them as through the layer's own
// entries, so that MYAPP_TOOLS_WORD_COUNT_RUN reaches
// tools.word_count.run rather than a new tool word, and a misspelt name
// is told the path it most likely meant.
func Known(path partial.Path, keys ...string) Option {
	return option(func(o *options) {
		if o.known == nil {
			o.known = map[string][]string{}
		}
		k := path.String()
		o.known[k] = append(o.known[k], keys...)
	})
}

// Except leaves out of [Env] the variables that names name, in any case:
// a name, or a prefix ending in '*' (MYAPP_PROVIDER_*). They are a host's
// own variables under the same prefix as its configuration's
// (MYAPP_MODEL, read by the host itself). A variable that reaches no key
// and is close to one of the names is told so.
func Except(names ...string) Option {
	return option(func(o *options) { o.except = append(o.except, names...) })
}

// excepts reports whether Except names the variable name.
func (o options) excepts(name string) bool {
	for _, e := range o.except {
		if p, ok := strings.CutSuffix(e, "*"); ok {
			if len(name) >= len(p) && strings.EqualFold(name[:len(p)], p) {
				return true
			}
		} else if strings.EqualFold(name, e) {
			return true
		}
	}
	return false
}

// exceptNames returns the whole names Except names, not the prefixes.
func (o options) exceptNames() []string {
	var out []string
	for _, e := range o.except {
		if !strings.HasSuffix(e, "*") {
			out = append(out, e)
		}
	}
	return out
}

func newOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt.apply(&o)
	}
	o.depth = limits.Or(o.depth, limits.Depth)
	o.quote = limits.Or(o.quote, limits.Quote)
	return o
}
