package cache

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Counts are the token counts of texts (tool definitions as an export
// writes them) in one encoding, kept in one file of the cache beside the
// answers of discovery, by a hash of the text: a definition that did not
// change since it was last counted is not counted again, and the
// encoding's vocabulary is not built when nothing must be counted. The
// file is read on first use and written by [Counts.Write], only when a
// count was added or one not used for a day was used again (so a run that
// counts nothing new writes nothing). Writes are atomic; a file that
// cannot be read back whole is ignored and written again. Its methods may
// be called from several goroutines at once.
type Counts struct {
	name     string // the file
	dir      string
	encoding string
	counter  string // the counter's module and version
	today    int64  // days since 1970, when entries were used

	load    sync.Once
	mu      sync.Mutex
	entries map[string]countEntry // by the hash of the text
	changed bool
}

// countEntry is a count and the day it was last used, as the file holds
// it: [count, day].
type countEntry [2]int64

// countsFile is what the file of [Counts] holds.
type countsFile struct {
	Version  int                   `json:"version"`
	Encoding string                `json:"encoding"`
	Counter  string                `json:"counter,omitempty"`
	Counts   map[string]countEntry `json:"counts"`
}

// MaxCounts is how many counts the file of [Counts] keeps: each export of
// a server of 10,000 tools (the most one server lists, see
// codec.Limits.ServerTools), in four formats. Past it, the counts used
// longest ago are dropped. The file is then about 2 MB.
const MaxCounts = 40_000

// maxCountsFile bounds the file read back: [MaxCounts] entries of about
// 50 bytes, twice over.
const maxCountsFile = 4 << 20

// Counts returns the token counts of the encoding kept in the cache, as
// counter (a module and its version) counted them: counts another counter
// made are not used; nil without a cache (a nil Counts counts every text).
func (c *Cache) Counts(encoding, counter string) *Counts {
	if c == nil || c.Dir == "" {
		return nil
	}
	return &Counts{
		name: filepath.Join(c.Dir, "tokens-"+encoding+".json"), dir: c.Dir, encoding: encoding, counter: counter,
		today: time.Now().Unix() / 86400,
	}
}

// Path is the file that holds the counts.
func (t *Counts) Path() string { return t.name }

// read reads the file once; what cannot be read whole counts as empty.
func (t *Counts) read() {
	t.load.Do(func() {
		t.entries = map[string]countEntry{}
		var f countsFile
		found, ok := readJSON(t.name, maxCountsFile, &f)
		if !found {
			return
		}
		if !ok || f.Version != cacheVersion || f.Encoding != t.encoding || f.Counter != t.counter {
			t.changed = true // written again, whole
			return
		}
		for k, e := range f.Counts {
			if len(k) != countKeyLen || e[0] < 0 {
				t.changed = true
				continue
			}
			t.entries[k] = e
		}
	})
}

// countKeyLen is the length of a key: the hex of the first 16 bytes of
// the text's SHA-256 (a collision among 40,000 texts has a chance of
// about 10^-30).
const countKeyLen = 32

// countKey is the key of text.
func countKey(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:countKeyLen/2])
}

// Count returns the count kept for text, or counts it with count and
// keeps that. count is called outside the lock: texts are counted at once
// from several goroutines.
func (t *Counts) Count(text string, count func(string) int) int {
	if t == nil {
		return count(text)
	}
	t.read()
	key := countKey(text)
	t.mu.Lock()
	e, ok := t.entries[key]
	if ok {
		if e[1] < t.today {
			t.entries[key] = countEntry{e[0], t.today}
			t.changed = true
		}
		t.mu.Unlock()
		return int(e[0])
	}
	t.mu.Unlock()
	n := count(text)
	t.mu.Lock()
	t.entries[key] = countEntry{int64(n), t.today}
	t.changed = true
	t.mu.Unlock()
	return n
}

// Write writes the counts when they changed since the file was read,
// keeping the [MaxCounts] used last; otherwise it writes nothing.
func (t *Counts) Write() error {
	if t == nil {
		return nil
	}
	t.read()
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.changed {
		return nil
	}
	if len(t.entries) > MaxCounts {
		keys := slices.SortedFunc(maps.Keys(t.entries), func(a, b string) int {
			return cmp.Or(cmp.Compare(t.entries[b][1], t.entries[a][1]), cmp.Compare(a, b))
		})
		for _, k := range keys[MaxCounts:] {
			delete(t.entries, k)
		}
	}
	b, err := json.Marshal(countsFile{Version: cacheVersion, Encoding: t.encoding, Counter: t.counter, Counts: t.entries})
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := writeFile(t.dir, t.name, b); err != nil {
		return err
	}
	t.changed = false
	return nil
}
