//go:build linux

package resolve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"syscall"
)

// fileIdentity names a file's version: its path, size, modification and
// change times and inode.
func fileIdentity(path string, info os.FileInfo) string {
	var ctime, ino int64
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		ctime, ino = int64(st.Ctim.Sec)*1e9+int64(st.Ctim.Nsec), int64(st.Ino)
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d\x00%d\x00%d", path, info.Size(), info.ModTime().UnixNano(), ctime, ino))
	return hex.EncodeToString(sum[:])
}
