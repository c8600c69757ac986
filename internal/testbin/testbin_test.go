package testbin

import (
	"os"
	"testing"
)

// TestBuildKeepsUpToDate: a program that is up to date is left as it is,
// the same file: the tests of other packages may be running it, and a
// program replaced under them is another program to strata (its cache
// keys name the file's identity and time), so that a server they expect
// to be listed from the cache would be started instead.
func TestBuildKeepsUpToDate(t *testing.T) {
	stat := func() os.FileInfo {
		t.Helper()
		paths, err := Build(MCPFake)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(paths[MCPFake])
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	before := stat()
	after := stat()
	if !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()) {
		t.Errorf("building again replaced the program (%v, %v; then %v, %v)", before.Sys(), before.ModTime(), after.Sys(), after.ModTime())
	}
}
