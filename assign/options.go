package assign

import (
	"github.com/strata-config/strata/internal/limits"
)

// An Option sets a limit on what [Parse], [Env] and [Layer] accept. Without
// one, the defaults of codec.Limits apply; a loader passes on its own.
type Option interface{ apply(*options) }

// option is an [Option] made of a function.
type option func(*options)

func (f option) apply(o *options) { f(o) }

type options struct {
	depth, quote int
}

// MaxDepth bounds how deep an assignment may nest: its key path, with the
// JSON value under it (default 1,000; see codec.Limits.Depth).
func MaxDepth(n int) Option { return option(func(o *options) { o.depth = n }) }

// MaxQuote bounds how many characters of a key, a value or a variable's
// name a message quotes (default 100; see codec.Limits.Quote).
func MaxQuote(n int) Option { return option(func(o *options) { o.quote = n }) }

func newOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt.apply(&o)
	}
	o.depth = limits.Or(o.depth, limits.Depth)
	o.quote = limits.Or(o.quote, limits.Quote)
	return o
}
