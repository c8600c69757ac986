//go:build linux

package cache

import (
	"fmt"
	"os"
	"syscall"
)

// fileIdentity names the version of a file's content: its device, inode
// and change time. Every write changes the change time, which cannot be
// set back, and a replaced file has a new inode.
func fileIdentity(info os.FileInfo) string {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%d:%d:%d.%09d", st.Dev, st.Ino, st.Ctim.Sec, st.Ctim.Nsec)
}
