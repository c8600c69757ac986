package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/strata-config/strata/internal/readfile"
)

// Answers are the answers of the executables of one discovery directory,
// kept together in one file of the cache: a resolution reads the file once
// and writes it once, after its runs, and only when what the executables
// answered changed. With a file an answer, a cold discovery of 200 tools
// created 200 files (300 to 450 ms on the shared 2-CPU machine, beside
// runs of 2.4 to 4 s there; one file of them all takes 0.5 ms), and a warm
// one read 200 (24 to 60 ms).
//
// An answer is kept under a hash of its executable's path, with the hash
// of its [Key]: it is found only under the key it was stored with, so a
// changed executable misses, and its new answer replaces the old one. The
// file holds no path or key in clear, as no entry of the cache does.
// Writes are atomic (a reader sees the old file or the new one); two
// resolutions that write at once each leave a whole file, the last one's.
// A file that cannot be read back whole, or is another directory's, is
// ignored and written again.
type Answers struct {
	c    *Cache
	name string // the file
	id   string // the hash of the directory it is for

	load    sync.Once
	mu      sync.Mutex
	entries map[string]answerEntry // by the hash of the executable's path
	changed bool
}

// answerEntry is one executable's answer: the hash of its key, when it was
// stored, and the answer (compact JSON).
type answerEntry struct {
	Key     string          `json:"key"`
	Written int64           `json:"written"`
	Answer  json.RawMessage `json:"answer"`
}

// answersFile is what the file of [Answers] holds.
type answersFile struct {
	Version int                    `json:"version"`
	Dir     string                 `json:"dir"`
	Entries map[string]answerEntry `json:"entries"`
}

// MaxAnswers bounds the file of [Answers], read or written: a directory
// of 200 described tools is about 50 KB. Answers past it are not kept:
// their tools are asked again by the next resolution.
const MaxAnswers = 64 << 20

// Answers returns the answers of the executables of the directory dir (an
// absolute path) asked with protocol; nil without a cache. Its file is
// read on first use.
func (c *Cache) Answers(protocol, dir string) *Answers {
	if c == nil || c.Dir == "" {
		return nil
	}
	id := hash(protocol + "\x00" + dir)
	return &Answers{c: c, id: id, name: filepath.Join(c.Dir, id+".json")}
}

// hash is the hex SHA-256 of s.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Path is the file that holds the answers.
func (a *Answers) Path() string { return a.name }

// read reads the file once; what cannot be read whole counts as empty.
func (a *Answers) read() {
	a.load.Do(func() {
		a.entries = map[string]answerEntry{}
		var f answersFile
		found, ok := readJSON(a.name, MaxAnswers, &f)
		if !found {
			return
		}
		if !ok || f.Version != cacheVersion || f.Dir != a.id {
			a.changed = true // written again, whole
			return
		}
		for k, e := range f.Entries {
			if e.Key == "" || len(e.Answer) == 0 {
				a.changed = true
				continue
			}
			a.entries[k] = e
		}
	})
}

// Get returns the answer stored for k, the executable at k.Path, and when
// it was stored.
func (a *Answers) Get(k Key) (answer []byte, written time.Time, ok bool) {
	if a == nil {
		return nil, time.Time{}, false
	}
	a.read()
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.entries[hash(k.Path)]
	if !ok || e.Key != k.id() {
		return nil, time.Time{}, false
	}
	return e.Answer, time.Unix(0, e.Written), true
}

// Put stores answer for k, the executable at k.Path, in place of what its
// executable answered before; [Answers.Write] writes it. An answer the
// same as the one stored changes nothing.
func (a *Answers) Put(k Key, answer []byte, now time.Time) error {
	if a == nil {
		return nil
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, answer); err != nil {
		return fmt.Errorf("cache: the answer is not JSON: %w", err)
	}
	a.read()
	id, path := k.id(), hash(k.Path)
	a.mu.Lock()
	defer a.mu.Unlock()
	if old, ok := a.entries[path]; ok && old.Key == id && bytes.Equal(old.Answer, compact.Bytes()) {
		return nil
	}
	a.entries[path] = answerEntry{Key: id, Written: now.UnixNano(), Answer: compact.Bytes()}
	a.changed = true
	return nil
}

// Write writes the answers of the executables programs (the paths of those
// the directory holds now; the answers of others are dropped), when they
// changed since the file was read; otherwise it writes nothing.
func (a *Answers) Write(programs []string) error {
	if a == nil {
		return nil
	}
	a.read()
	a.mu.Lock()
	defer a.mu.Unlock()
	keep := make(map[string]bool, len(programs))
	for _, p := range programs {
		keep[hash(p)] = true
	}
	for k := range a.entries {
		if !keep[k] {
			delete(a.entries, k)
			a.changed = true
		}
	}
	if !a.changed {
		return nil
	}
	b, err := json.Marshal(answersFile{Version: cacheVersion, Dir: a.id, Entries: a.entries})
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if len(b) > MaxAnswers {
		return fmt.Errorf("cache: the answers of %d tools of one directory come to %s, more than the %s a cache file holds; they are asked again next time", len(a.entries), readfile.Bytes(int64(len(b))), readfile.Bytes(MaxAnswers))
	}
	if err := writeFile(a.c.Dir, a.name, b); err != nil {
		return err
	}
	a.changed = false
	return nil
}

// readJSON reads the JSON file name, of at most max bytes, into v: found
// is false when there is no file to read, ok false when what it holds
// cannot be read whole.
func readJSON(name string, max int64, v any) (found, ok bool) {
	b, err := readfile.Regular(context.Background(), name, max, "a cache file")
	if err != nil {
		return false, false
	}
	return true, json.Unmarshal(b, v) == nil
}

// writeFile writes b to the file name in dir, atomically: readers see the
// old file or the new one, never a part. The first file makes dir.
func writeFile(dir, name string, b []byte) error {
	tmp, err := os.CreateTemp(dir, filepath.Base(name)+".*.tmp")
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("cache: %w", err)
		}
		tmp, err = os.CreateTemp(dir, filepath.Base(name)+".*.tmp")
	}
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	// No fsync: a file that a crash leaves short or empty fails the checks
	// of a read and is written again.
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}
