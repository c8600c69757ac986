package gateway

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// maxToken bounds what is read of a token file.
const maxToken = 4096

// ReadToken reads the bearer token of a --token-file: its first line,
// without surrounding white space; it must not be empty.
func ReadToken(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return "", err
	} else if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxToken+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxToken {
		return "", fmt.Errorf("%s: a token is at most %d bytes", path, maxToken)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	tok := string(bytes.TrimSpace(line))
	if tok == "" {
		return "", fmt.Errorf("%s holds no token", path)
	}
	return tok, nil
}

// GeneratedToken returns the token kept in dir (the file "serve-token"),
// made when there is none: 32 random bytes in hex, written with mode 0600
// in a directory of mode 0700. A file that others may read or write is
// replaced by a new token. It returns the file's path.
func GeneratedToken(dir string) (token, path string, err error) {
	path = filepath.Join(dir, "serve-token")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", err
	}
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o077 == 0 {
		if tok, err := ReadToken(path); err == nil {
			return tok, path, nil
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	tok := hex.EncodeToString(b)
	tmp, err := os.CreateTemp(dir, ".serve-token-*")
	if err != nil {
		return "", "", err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return "", "", err
	}
	if _, err := tmp.WriteString(tok + "\n"); err != nil {
		tmp.Close()
		return "", "", err
	}
	if err := tmp.Close(); err != nil {
		return "", "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", "", err
	}
	return tok, path, nil
}
