//go:build unix

package gateway_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/strata-config/strata/internal/gateway"
)

// TestReadTokenRefusesSpecialFiles: a --token-file is read only when it
// is a regular file within the bound: a named pipe is refused without
// waiting for a writer, a device (/dev/zero) and a directory before a
// byte is read, and a file over the bound is refused.
func TestReadTokenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	if err := syscall.Mkfifo(path("fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", path("zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path("large"), []byte(strings.Repeat("x", 5000)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path("token"), []byte("  s3cret \nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, want string }{
		{"fifo", "is a named pipe"},
		{"zero", "is a device"},
		{".", "is a directory"},
		{"large", "larger than"},
		{"missing", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := gateway.ReadToken(path(tt.name))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadToken = %q, %v; want an error that says %q", tok, err, tt.want)
			}
		})
	}
	if tok, err := gateway.ReadToken(path("token")); tok != "s3cret" || err != nil {
		t.Errorf("ReadToken of a token file = %q, %v", tok, err)
	}
}
