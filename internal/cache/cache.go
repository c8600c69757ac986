// Package cache keeps the answers of discovery on disk, so that resolving
// again runs nothing, and the token counts of definitions ([Counts]), so
// that measuring them again counts nothing.
package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-config/strata/internal/exe"
	"github.com/strata-config/strata/internal/readfile"
)

// Cache keeps answers on disk, so that resolving again
// runs nothing. An answer is stored under a key made of everything that
// decides it: the protocol, the executable's path, size, modification time
// and content, and the rendered command (for MCP servers, their arguments,
// environment and directory, and the capabilities declared to them), the
// script an interpreter runs, and the version of the package npx runs. The content is named by the file's identity
// where the system gives one that changes with every write (on Linux: the
// inode and the change time, which cannot be set back), and by its SHA-256
// elsewhere; so a warm lookup reads one small file and never the
// executable. Writes are atomic; an entry that cannot be read back whole
// and under its own key is ignored and written again. The answers of a
// discovery directory's executables are kept together, in one file of
// [Answers] for the directory.
type Cache struct {
	// Dir holds the entries; DefaultDir gives the usual place.
	Dir string
}

// DefaultDir returns $XDG_CACHE_HOME/<name>/schemas, or
// $HOME/.cache/<name>/schemas, reading the variables from environ.
func DefaultDir(name string, environ []string) string {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	if x := env["XDG_CACHE_HOME"]; x != "" {
		return filepath.Join(x, name, "schemas")
	}
	if h := env["HOME"]; h != "" {
		return filepath.Join(h, ".cache", name, "schemas")
	}
	return ""
}

// cacheVersion changes when the entry format does.
const cacheVersion = 4

// Key is what decides an answer: the protocol that asked for it, the
// program (see [Cache.Key]), and how it ran.
type Key struct {
	Protocol string   `json:"protocol"`
	Path     string   `json:"path"`
	Size     int64    `json:"size"`
	ModTime  int64    `json:"mtime"`
	Identity string   `json:"identity,omitempty"`
	SHA256   string   `json:"sha256,omitempty"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env,omitempty"`
	Dir      string   `json:"dir,omitempty"`
	// Files identify the script an interpreter runs, by path, so that a
	// changed script is asked again.
	Files map[string]string `json:"files,omitempty"`
	// Packages identify what npx would run (see [Key.AddPackage]), so
	// that an upgraded package is asked again.
	Packages map[string]string `json:"packages,omitempty"`
	// Client, for an MCP server, are the capabilities declared to it
	// (JSON), when any: a server may list other tools to a client that can
	// answer its requests.
	Client string `json:"client,omitempty"`
	// Budget, for an MCP server, is the budget of its tool list when it
	// is not the default: a list past it is kept cut.
	Budget string `json:"budget,omitempty"`
}

// errNoCache is the fingerprint's error without a cache: there is nothing
// to key.
var errNoCache = errors.New("no cache")

// Key describes the program at path for a key: its path, size and
// modification time, and its content, by identity where the system gives
// one and by hash otherwise. The caller fills in how it runs. Without a
// cache it returns an error: there is nothing to key.
func (c *Cache) Key(path string) (Key, error) {
	if c == nil || c.Dir == "" {
		return Key{}, errNoCache
	}
	id, info, err := identify(path)
	if err != nil {
		return Key{}, err
	}
	return Key{Path: path, Size: info.Size(), ModTime: info.ModTime().UnixNano(), Identity: id.identity, SHA256: id.sha256}, nil
}

// AddScript records the identity of the script an interpreter runs (see
// exe.Script), so that a changed script is asked again.
func (k *Key) AddScript(program string, args []string, dir string) {
	p := exe.Script(program, args, dir)
	if p == "" {
		return
	}
	id, info, err := identify(p)
	if err != nil {
		return
	}
	k.Files = map[string]string{p: fmt.Sprintf("%d:%d:%s%s", info.Size(), info.ModTime().UnixNano(), id.identity, id.sha256)}
}

type fileID struct{ identity, sha256 string }

// identify names the version of the content of the file at path: its
// identity where the system gives one, else its SHA-256.
func identify(path string) (fileID, os.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return fileID{}, nil, err
	}
	if id := fileIdentity(info); id != "" {
		return fileID{identity: id}, info, nil
	}
	if !info.Mode().IsRegular() {
		return fileID{}, info, nil
	}
	sum, err := exe.Sum(path) // regular, bounded, never waiting on a pipe
	if err != nil {
		return fileID{}, nil, err
	}
	return fileID{sha256: strings.TrimPrefix(sum, "sha256:")}, info, nil
}

func (k Key) id() string {
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// MaxEntry bounds the file of an entry, read or written: the answer of
// one program or server, which codec.Limits.ServerListing (4 MiB unless
// a host raises it) bounds as it is received. A larger answer is not
// kept: it is asked again by the next resolution.
const MaxEntry = 64 << 20

// Get returns the answer stored for k.
func (c *Cache) Get(k Key) ([]byte, bool) {
	if c == nil || c.Dir == "" {
		return nil, false
	}
	id := k.id()
	b, err := readfile.Regular(context.Background(), filepath.Join(c.Dir, id+".json"), MaxEntry, "a cache file")
	if err != nil {
		return nil, false
	}
	// put writes exactly {"version":V,"key":"ID","answer":ANSWER}; anything
	// else is corrupt, truncated or foreign, and rebuilt by the next put.
	head := entryHead(id)
	if !bytes.HasPrefix(b, head) || !bytes.HasSuffix(b, []byte("}")) {
		return nil, false
	}
	answer := b[len(head) : len(b)-1]
	if len(answer) == 0 || !json.Valid(answer) {
		return nil, false
	}
	return answer, true
}

// Entry returns the file of the entry of k, and when it was written; ok
// is false when there is none.
func (c *Cache) Entry(k Key) (path string, written time.Time, ok bool) {
	if c == nil || c.Dir == "" {
		return "", time.Time{}, false
	}
	path = filepath.Join(c.Dir, k.id()+".json")
	info, err := os.Stat(path)
	if err != nil {
		return "", time.Time{}, false
	}
	return path, info.ModTime(), true
}

// entryHead is how the entry of id starts.
func entryHead(id string) []byte {
	return fmt.Appendf(nil, `{"version":%d,"key":%q,"answer":`, cacheVersion, id)
}

// holds reports whether the file name holds b, reading no more than b's
// length.
func holds(name string, b []byte) bool {
	f, info, err := readfile.Open(name, "a cache file")
	if err != nil {
		return false
	}
	defer f.Close()
	if info.Size() != int64(len(b)) {
		return false
	}
	old := make([]byte, len(b))
	_, err = io.ReadFull(f, old)
	return err == nil && bytes.Equal(old, b)
}

// Put stores answer for k, atomically: readers see the old entry or the
// new one, never a part. An entry that holds the answer already is not
// written again (resolving with Refresh asks every tool again, and most
// answer as before).
func (c *Cache) Put(k Key, answer []byte) error {
	if c == nil || c.Dir == "" {
		return nil
	}
	id := k.id()
	var compact bytes.Buffer
	compact.Grow(len(answer))
	if err := json.Compact(&compact, answer); err != nil { // which checks it is JSON
		return errors.New("cache: the answer is not JSON")
	}
	b := append(append(entryHead(id), compact.Bytes()...), '}')
	if len(b) > MaxEntry {
		return nil // not kept: asked again next time, as Get would not read it
	}
	name := filepath.Join(c.Dir, id+".json")
	if holds(name, b) {
		return nil
	}
	return writeFile(c.Dir, name, b)
}

// Failure is a discovery that failed in a way that costs the user time (a
// program that did not answer within its timeout), remembered so that the
// next resolutions do not wait for it again: what went wrong, when, and
// the timeout it had.
type Failure struct {
	Err     string        `json:"error"`
	At      time.Time     `json:"at"`
	Timeout time.Duration `json:"timeout,omitempty"`
}

// FailureTTL is how long a failure is remembered: long enough that a
// session of commands meets a tool that hangs once, short enough that a
// tool fixed without a change to its file is asked again soon.
const FailureTTL = 10 * time.Minute

// failureName is the file of the failure of the entry id, beside its
// answer.
func (c *Cache) failureName(id string) string { return filepath.Join(c.Dir, id+".failed") }

// PutFailure remembers that asking k failed with f. An answer stored
// later for k forgets it (see [Cache.Put]).
func (c *Cache) PutFailure(k Key, f Failure) error {
	if c == nil || c.Dir == "" {
		return nil
	}
	id := k.id()
	body, err := json.Marshal(struct {
		Version int     `json:"version"`
		Key     string  `json:"key"`
		Failed  Failure `json:"failed"`
	}{cacheVersion, id, f})
	if err != nil {
		return err
	}
	return writeFile(c.Dir, c.failureName(id), body)
}

// maxFailure bounds the file of a failure read back: an error message
// and two numbers.
const maxFailure = 64 << 10

// Failed returns the failure remembered for k, when it is younger than
// [FailureTTL] at now.
func (c *Cache) Failed(k Key, now time.Time) (Failure, bool) {
	if c == nil || c.Dir == "" {
		return Failure{}, false
	}
	id := k.id()
	b, err := readfile.Regular(context.Background(), c.failureName(id), maxFailure, "a cache file")
	if err != nil {
		return Failure{}, false
	}
	var entry struct {
		Version int     `json:"version"`
		Key     string  `json:"key"`
		Failed  Failure `json:"failed"`
	}
	if json.Unmarshal(b, &entry) != nil || entry.Version != cacheVersion || entry.Key != id {
		return Failure{}, false
	}
	age := now.Sub(entry.Failed.At)
	if age < 0 || age >= FailureTTL {
		return Failure{}, false
	}
	return entry.Failed, true
}

// Forget removes the failure remembered for k, if any.
func (c *Cache) Forget(k Key) {
	if c == nil || c.Dir == "" {
		return
	}
	os.Remove(c.failureName(k.id()))
}
