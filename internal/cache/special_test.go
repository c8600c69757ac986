package cache

import (
	"os"
	"testing"
	"time"
)

// TestEntriesRefuseSpecialFiles: an entry, or a failure, whose file is a
// named pipe or a link to a device is not there: Get and Failed do not
// wait for a writer nor read a device that never ends, and Put replaces
// it by the entry.
func TestEntriesRefuseSpecialFiles(t *testing.T) {
	at := time.Date(2026, 12, 2, 13, 0, 0, 0, time.UTC)
	k := Key{Protocol: "describe", Path: "/tools/t", Argv: []string{"/tools/t", "--describe"}}
	for _, special := range []struct {
		name string
		make func(path string) error
	}{
		{"a named pipe", mkfifo},
		{"a link to a device", func(path string) error { return os.Symlink("/dev/zero", path) }},
	} {
		t.Run(special.name, func(t *testing.T) {
			c := &Cache{Dir: t.TempDir()}
			if err := special.make(c.failureName(k.id())); err != nil {
				t.Skip(err)
			}
			if err := special.make(c.Dir + "/" + k.id() + ".json"); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.Get(k); ok {
				t.Error("Get found an entry")
			}
			if _, ok := c.Failed(k, at); ok {
				t.Error("Failed found a failure")
			}
			if err := c.Put(k, []byte(`{"name":"t"}`)); err != nil {
				t.Fatal(err)
			}
			if got, ok := c.Get(k); !ok || string(got) != `{"name":"t"}` {
				t.Errorf("after Put, Get = %s, %v", got, ok)
			}
		})
	}
}
