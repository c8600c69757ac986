package gateway

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/strata-config/strata/internal/readfile"
)

// maxToken bounds what is read of a token file.
const maxToken = 4096

// ReadToken reads the bearer token of a --token-file: its first line,
// without surrounding white space; it must not be empty.
// It is read as a layer file is: a regular file (a named pipe is not
// waited on, a device not read) of at most 4 KiB.
func ReadToken(path string) (string, error) {
	b, err := readfile.Regular(context.Background(), path, maxToken, "a token file")
	if err != nil {
		return "", err
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
