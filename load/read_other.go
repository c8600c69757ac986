//go:build !unix

package load

import "os"

// openNonBlocking opens path for reading; only Unix has named pipes that
// block an open.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
