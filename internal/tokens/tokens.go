// Package tokens counts the tokens of text in o200k_base, the encoding of
// OpenAI's current models, with the vocabulary the tokenizer module embeds
// (nothing is downloaded). The vocabulary, a map of 200,000 entries, is
// built on the first count, not when a program starts: a strata command
// that counts nothing pays only the tokenizer's package initialisation
// (its regular-expression tables, under a millisecond), and budget keeps
// counts in the cache so that a definition counted once is not counted
// again. Of the o200k_base counters the Go module proxy serves, this one
// (tiktoken-go/tokenizer) is exact on budget's reference set and the
// fastest, about 6 times pkoukk/tiktoken-go (internal/bench/tokencount).
package tokens

import (
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/tiktoken-go/tokenizer/codec"
)

// Encoding is the name of the encoding [Count] counts in.
const Encoding = "o200k_base"

var (
	once  sync.Once
	enc   *codec.Codec
	built atomic.Bool
)

// Counter names what counts: the tokenizer's module and its version, as
// the program's build records it (a test binary records none), so that
// counts kept by another version are not taken for this one's.
func Counter() string {
	counterOnce.Do(func() {
		counter = module
		if info, ok := debug.ReadBuildInfo(); ok {
			for _, d := range info.Deps {
				if d.Path == module {
					counter = module + "@" + d.Version
				}
			}
		}
	})
	return counter
}

// module is the tokenizer's module.
const module = "github.com/tiktoken-go/tokenizer"

var (
	counterOnce sync.Once
	counter     string
)

// Built reports whether the vocabulary was built: whether anything was
// counted in this process.
func Built() bool { return built.Load() }

// Count returns the number of o200k_base tokens of s. Text that is not
// valid UTF-8 is counted byte by byte, as the encoding's byte-level
// tokens would carry it.
//
// Give it JSON: the encoding's regular expression takes time quadratic in
// a run of whitespace that holds raw line breaks (256 KB of "\n " took
// 151 s), which JSON text never has; on JSON it is linear (4 MiB of any
// one- or two-character pattern in 6 to 12 s on a loaded machine).
func Count(s string) int {
	once.Do(func() { enc = codec.NewO200kBase(); built.Store(true) })
	n, err := enc.Count(s)
	if err != nil {
		// The codec's default error mode never fails: an error would be a
		// change of the module; count bytes rather than nothing.
		return len(s)
	}
	return n
}
