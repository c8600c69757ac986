package resolve

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Cache keeps the answers of discovery on disk, so that resolving again
// runs nothing. An answer is stored under a key made of everything that
// decides it: the protocol, the executable's path, size, modification time
// and content hash, and the rendered command. Writes are atomic; an entry
// that cannot be read back whole and under its own key is ignored and
// written again.
type Cache struct {
	// Dir holds the entries; DefaultCacheDir gives the usual place.
	Dir string
}

// DefaultCacheDir returns $XDG_CACHE_HOME/<name>/schemas, or
// $HOME/.cache/<name>/schemas, reading the variables from environ.
func DefaultCacheDir(name string, environ []string) string {
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
const cacheVersion = 1

// cacheKey is what decides a discovery answer.
type cacheKey struct {
	Protocol Protocol `json:"protocol"`
	Path     string   `json:"path"`
	Size     int64    `json:"size"`
	ModTime  int64    `json:"mtime"`
	SHA256   string   `json:"sha256"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env,omitempty"`
	Dir      string   `json:"dir,omitempty"`
}

type cacheEntry struct {
	Version int             `json:"version"`
	Key     string          `json:"key"`
	Answer  json.RawMessage `json:"answer"`
}

// fingerprint describes the executable at path for a cache key. Its
// content hash is remembered by the cache under the file's identity (path,
// size, modification and change times, inode): the change time cannot be
// set back, so a file whose identity is unchanged has unchanged content,
// and a large program (node, python) is hashed once, not on every run.
func (c *Cache) fingerprint(path string) (cacheKey, error) {
	info, err := os.Stat(path)
	if err != nil {
		return cacheKey{}, err
	}
	key := cacheKey{Path: path, Size: info.Size(), ModTime: info.ModTime().UnixNano()}
	ident := fileIdentity(path, info)
	if sum, ok := c.hashOf(ident); ok {
		key.SHA256 = sum
		return key, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return cacheKey{}, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return cacheKey{}, err
	}
	key.SHA256 = hex.EncodeToString(h.Sum(nil))
	c.rememberHash(ident, key.SHA256)
	return key, nil
}

// hashOf returns the content hash remembered for a file identity.
func (c *Cache) hashOf(ident string) (string, bool) {
	if c == nil || c.Dir == "" || ident == "" {
		return "", false
	}
	b, err := os.ReadFile(filepath.Join(c.Dir, "hash-"+ident))
	if err != nil || len(b) != 64 {
		return "", false
	}
	if _, err := hex.DecodeString(string(b)); err != nil {
		return "", false
	}
	return string(b), true
}

// rememberHash records the content hash of a file identity, atomically.
func (c *Cache) rememberHash(ident, sum string) {
	if c == nil || c.Dir == "" || ident == "" {
		return
	}
	if os.MkdirAll(c.Dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(c.Dir, "hash-*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(sum)
	if errors.Join(werr, tmp.Close()) != nil || os.Rename(tmp.Name(), filepath.Join(c.Dir, "hash-"+ident)) != nil {
		os.Remove(tmp.Name())
	}
}

func (k cacheKey) id() string {
	b, _ := json.Marshal(k)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// get returns the cached answer for k.
func (c *Cache) get(k cacheKey) ([]byte, bool) {
	if c == nil || c.Dir == "" {
		return nil, false
	}
	id := k.id()
	b, err := os.ReadFile(filepath.Join(c.Dir, id+".json"))
	if err != nil {
		return nil, false
	}
	var e cacheEntry
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil || e.Version != cacheVersion || e.Key != id || len(e.Answer) == 0 || !json.Valid(e.Answer) {
		return nil, false // corrupt, truncated or foreign: rebuilt by the next put
	}
	return e.Answer, true
}

// put stores answer for k, atomically: readers see the old entry or the
// new one, never a part.
func (c *Cache) put(k cacheKey, answer []byte) error {
	if c == nil || c.Dir == "" {
		return nil
	}
	if !json.Valid(answer) {
		return errors.New("cache: the answer is not JSON")
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	id := k.id()
	var compact bytes.Buffer
	if err := json.Compact(&compact, answer); err != nil {
		return err
	}
	b, err := json.Marshal(cacheEntry{Version: cacheVersion, Key: id, Answer: compact.Bytes()})
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.Dir, id+".*.tmp")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	_, werr := tmp.Write(b)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(c.Dir, id+".json")); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}
