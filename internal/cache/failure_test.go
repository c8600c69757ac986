package cache

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestFailed: a failure is remembered under its key for FailureTTL, and
// not when it is older, from the future, under another key, or unreadable.
func TestFailed(t *testing.T) {
	at := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	key := Key{Protocol: "describe", Path: "/tools/slow", Argv: []string{"/tools/slow", "--describe"}}
	other := key
	other.Argv = []string{"/tools/slow", "--other"}
	failure := Failure{Err: "did not answer within 5s", At: at, Timeout: 5 * time.Second}
	tests := []struct {
		name    string
		corrupt string // written over the entry, when set
		get     Key
		now     time.Time
		want    *Failure
	}{
		{name: "just failed", get: key, now: at, want: &failure},
		{name: "within the ttl", get: key, now: at.Add(FailureTTL - time.Second), want: &failure},
		{name: "past the ttl", get: key, now: at.Add(FailureTTL)},
		{name: "before it failed (a clock set back)", get: key, now: at.Add(-time.Minute)},
		{name: "another key", get: other, now: at},
		{name: "corrupt", corrupt: `{"version":4,"key":"x"`, get: key, now: at},
		{name: "an entry of another key renamed", corrupt: `{"version":4,"key":"0000","failed":{"error":"x","at":"2026-11-25T20:00:00Z"}}`, get: key, now: at},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cache{Dir: t.TempDir()}
			if err := c.PutFailure(key, failure); err != nil {
				t.Fatal(err)
			}
			if tt.corrupt != "" {
				if err := os.WriteFile(filepath.Join(c.Dir, key.id()+".failed"), []byte(tt.corrupt), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, ok := c.Failed(tt.get, tt.now)
			var gotp *Failure
			if ok {
				gotp = &got
			}
			if diff := cmp.Diff(tt.want, gotp); diff != "" {
				t.Errorf("Failed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestForget: an answer found again forgets the failure; the answer
// itself stays.
func TestForget(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	key := Key{Protocol: "describe", Path: "/tools/slow"}
	at := time.Now()
	if err := c.PutFailure(key, Failure{Err: "timed out", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := c.Put(key, []byte(`{"name":"slow"}`)); err != nil {
		t.Fatal(err)
	}
	c.Forget(key)
	if f, ok := c.Failed(key, at); ok {
		t.Errorf("Failed after Forget: %+v, want none", f)
	}
	if answer, ok := c.Get(key); !ok || string(answer) != `{"name":"slow"}` {
		t.Errorf("Get after Forget: %s, %v; want the answer", answer, ok)
	}
}
