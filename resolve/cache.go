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
// and content, and the rendered command (for MCP servers, their arguments,
// environment and directory). The content is named by the file's identity
// where the system gives one that changes with every write (on Linux: the
// inode and the change time, which cannot be set back), and by its SHA-256
// elsewhere; so a warm lookup reads one small file and never the
// executable. Writes are atomic; an entry that cannot be read back whole
// and under its own key is ignored and written again.
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
const cacheVersion = 2

// cacheKey is what decides a discovery answer.
type cacheKey struct {
	Protocol Protocol `json:"protocol"`
	Path     string   `json:"path"`
	Size     int64    `json:"size"`
	ModTime  int64    `json:"mtime"`
	Identity string   `json:"identity,omitempty"`
	SHA256   string   `json:"sha256,omitempty"`
	Argv     []string `json:"argv"`
	Env      []string `json:"env,omitempty"`
	Dir      string   `json:"dir,omitempty"`
}

// errNoCache is the fingerprint's error without a cache: there is nothing
// to key.
var errNoCache = errors.New("no cache")

// fingerprint describes the executable at path for a cache key: its path,
// size and modification time, and its content, by identity where the
// system gives one and by hash otherwise.
func (c *Cache) fingerprint(path string) (cacheKey, error) {
	if c == nil || c.Dir == "" {
		return cacheKey{}, errNoCache
	}
	info, err := os.Stat(path)
	if err != nil {
		return cacheKey{}, err
	}
	key := cacheKey{Path: path, Size: info.Size(), ModTime: info.ModTime().UnixNano()}
	if key.Identity = fileIdentity(info); key.Identity != "" {
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
	return key, nil
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

// entryHead is how the entry of id starts.
func entryHead(id string) []byte {
	return fmt.Appendf(nil, `{"version":%d,"key":%q,"answer":`, cacheVersion, id)
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
	b := append(append(entryHead(id), compact.Bytes()...), '}')
	tmp, err := os.CreateTemp(c.Dir, id+".*.tmp")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	// No fsync: an entry that a crash leaves short or empty fails the
	// checks of get and is written again.
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(c.Dir, id+".json")); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}
