package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// describeKey is the key of the executable at path asked --describe.
func describeKey(path string) Key {
	return Key{Protocol: "describe", Path: path, Size: 10, ModTime: 1, Identity: "1:2:3", Argv: []string{path, "--describe"}}
}

// TestAnswers: what the executables of a directory answered is read back
// from one file, under the key it was stored with; the file is written
// only when an answer changed or an executable went.
func TestAnswers(t *testing.T) {
	const dir = "/tools"
	a, b := describeKey("/tools/a"), describeKey("/tools/b")
	changed := a
	changed.Identity = "1:2:4" // the executable was written since
	at := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	type got struct {
		Answer  string
		Written time.Time
	}
	tests := []struct {
		name     string
		put      map[string]Key // answer -> key, put after the first write
		programs []string       // of the second write
		rewrite  bool           // whether the second write writes the file
		get      Key
		want     *got
	}{
		{name: "read back", programs: []string{"/tools/a", "/tools/b"}, get: a, want: &got{`{"name":"a"}`, at}},
		{name: "the same answer again writes nothing", put: map[string]Key{`{ "name": "a" }`: a}, programs: []string{"/tools/a", "/tools/b"}, get: a, want: &got{`{"name":"a"}`, at}},
		{name: "a changed executable misses", programs: []string{"/tools/a", "/tools/b"}, get: changed},
		{name: "its new answer replaces the old", put: map[string]Key{`{"name":"a2"}`: changed}, programs: []string{"/tools/a", "/tools/b"}, rewrite: true, get: changed, want: &got{`{"name":"a2"}`, at.Add(time.Hour)}},
		{name: "the old answer is gone", put: map[string]Key{`{"name":"a2"}`: changed}, programs: []string{"/tools/a", "/tools/b"}, rewrite: true, get: a},
		{name: "an executable that went is dropped", programs: []string{"/tools/b"}, rewrite: true, get: a},
		{name: "the others stay", programs: []string{"/tools/b"}, rewrite: true, get: b, want: &got{`{"name":"b"}`, at}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cache{Dir: t.TempDir()}
			first := c.Answers("describe", dir)
			for _, k := range []Key{a, b} {
				if err := first.Put(k, []byte(`{"name":"`+filepath.Base(k.Path)+`"}`), at); err != nil {
					t.Fatal(err)
				}
			}
			if err := first.Write([]string{"/tools/a", "/tools/b"}); err != nil {
				t.Fatal(err)
			}
			before, err := os.Stat(first.Path())
			if err != nil {
				t.Fatal(err)
			}
			second := c.Answers("describe", dir)
			for answer, k := range tt.put {
				if err := second.Put(k, []byte(answer), at.Add(time.Hour)); err != nil {
					t.Fatal(err)
				}
			}
			if err := second.Write(tt.programs); err != nil {
				t.Fatal(err)
			}
			after, err := os.Stat(second.Path())
			if err != nil {
				t.Fatal(err)
			}
			if rewritten := !os.SameFile(before, after); rewritten != tt.rewrite {
				t.Errorf("the file rewritten: %v, want %v", rewritten, tt.rewrite)
			}
			answer, written, ok := c.Answers("describe", dir).Get(tt.get)
			var g *got
			if ok {
				g = &got{string(answer), written.UTC()}
			}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("Get (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnswersUnreadable: a file that is not a whole file of answers of its
// directory, one past the bound, or not a regular file, holds no answer,
// and the next write replaces it whole; an entry moved under another
// executable's name is not that executable's answer.
func TestAnswersUnreadable(t *testing.T) {
	const dir = "/tools"
	a, b := describeKey("/tools/a"), describeKey("/tools/b")
	at := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		corrupt func(t *testing.T, path string, whole []byte)
	}{
		{"truncated", func(t *testing.T, path string, whole []byte) { write(t, path, whole[:len(whole)/2]) }},
		{"garbage", func(t *testing.T, path string, _ []byte) { write(t, path, []byte("\x00\x01garbage")) }},
		{"another version", func(t *testing.T, path string, whole []byte) {
			write(t, path, []byte(strings.Replace(string(whole), `"version":4`, `"version":3`, 1)))
		}},
		{"another directory's, renamed", func(t *testing.T, path string, _ []byte) {
			c := &Cache{Dir: t.TempDir()}
			other := c.Answers("describe", "/elsewhere")
			if err := other.Put(a, []byte(`{"name":"evil"}`), at); err != nil {
				t.Fatal(err)
			}
			if err := other.Write([]string{a.Path}); err != nil {
				t.Fatal(err)
			}
			whole, err := os.ReadFile(other.Path())
			if err != nil {
				t.Fatal(err)
			}
			write(t, path, whole)
		}},
		{"an entry moved under another executable", func(t *testing.T, path string, whole []byte) {
			// b's entry under a's name: a's key does not match it.
			s := strings.Replace(string(whole), hash(a.Path), "gone", 1)
			write(t, path, []byte(strings.Replace(s, hash(b.Path), hash(a.Path), 1)))
		}},
		{"past the bound", func(t *testing.T, path string, whole []byte) {
			write(t, path, whole)
			if err := os.Truncate(path, MaxAnswers+1); err != nil {
				t.Fatal(err)
			}
		}},
		{"a named pipe", func(t *testing.T, path string, _ []byte) {
			os.Remove(path)
			if err := mkfifo(path); err != nil {
				t.Skip(err)
			}
		}},
		{"a link to a device", func(t *testing.T, path string, _ []byte) {
			os.Remove(path)
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Cache{Dir: t.TempDir()}
			first := c.Answers("describe", dir)
			for _, k := range []Key{a, b} {
				if err := first.Put(k, []byte(`{"name":"`+filepath.Base(k.Path)+`"}`), at); err != nil {
					t.Fatal(err)
				}
			}
			if err := first.Write([]string{a.Path, b.Path}); err != nil {
				t.Fatal(err)
			}
			whole, err := os.ReadFile(first.Path())
			if err != nil {
				t.Fatal(err)
			}
			tt.corrupt(t, first.Path(), whole)
			second := c.Answers("describe", dir)
			if answer, _, ok := second.Get(a); ok {
				t.Fatalf("Get(a) = %s from a file %s", answer, tt.name)
			}
			// Nothing changed but the file: it is written again, whole.
			if err := second.Put(a, []byte(`{"name":"a"}`), at); err != nil {
				t.Fatal(err)
			}
			if err := second.Write([]string{a.Path, b.Path}); err != nil {
				t.Fatal(err)
			}
			if answer, _, ok := c.Answers("describe", dir).Get(a); !ok || string(answer) != `{"name":"a"}` {
				t.Errorf("after writing again: %s, %v; want a's answer", answer, ok)
			}
			if leftovers, _ := filepath.Glob(filepath.Join(c.Dir, "*.tmp")); len(leftovers) != 0 {
				t.Errorf("temporary files left: %v", leftovers)
			}
		})
	}
}

// TestAnswersHoldNoSecret: the file names neither the executables nor
// the values of their keys (an environment may hold a token), as no entry
// of the cache does.
func TestAnswersHoldNoSecret(t *testing.T) {
	c := &Cache{Dir: t.TempDir()}
	k := describeKey("/home/someone/tools/deploy")
	k.Env = []string{"DEPLOY_TOKEN=s3cr3t-token"}
	a := c.Answers("describe", "/home/someone/tools")
	if err := a.Put(k, []byte(`{"name":"deploy"}`), time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := a.Write([]string{k.Path}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(a.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"someone", "deploy/", "tools", "s3cr3t", "DEPLOY_TOKEN"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the file holds %q:\n%s", secret, b)
		}
	}
}

// TestAnswersNoCache: without a cache there is nothing to read or write.
func TestAnswersNoCache(t *testing.T) {
	for _, c := range []*Cache{nil, {}} {
		a := c.Answers("describe", "/tools")
		if a != nil {
			t.Fatalf("Answers of %#v = %#v, want nil", c, a)
		}
		if err := a.Put(describeKey("/tools/a"), []byte(`{}`), time.Now()); err != nil {
			t.Error(err)
		}
		if _, _, ok := a.Get(describeKey("/tools/a")); ok {
			t.Error("Get found an answer without a cache")
		}
		if err := a.Write([]string{"/tools/a"}); err != nil {
			t.Error(err)
		}
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
