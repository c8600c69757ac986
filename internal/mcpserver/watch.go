package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// watcher tells of changes of a set of paths: files and directories that
// exist (a directory's entries count), and paths that do not exist yet.
// It watches directories, since editors replace files rather than write
// them: an existing directory itself, and for anything else the nearest
// existing directory above it.
type watcher struct {
	w *fsnotify.Watcher

	mu    sync.Mutex
	paths []string        // what matters
	dirs  map[string]bool // what is watched
}

func newWatcher(paths []string) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &watcher{w: fw, dirs: map[string]bool{}}
	w.set(paths)
	return w, nil
}

// set changes the paths watched.
func (w *watcher) set(paths []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.paths = w.paths[:0]
	want := map[string]bool{}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue // a program looked up in PATH that is not there
		}
		p = filepath.Clean(p)
		w.paths = append(w.paths, p)
		want[dirOf(p)] = true
	}
	for d := range w.dirs {
		if !want[d] {
			_ = w.w.Remove(d)
			delete(w.dirs, d)
		}
	}
	for d := range want {
		if !w.dirs[d] && w.w.Add(d) == nil {
			w.dirs[d] = true
		}
	}
}

// dirOf is the directory to watch for p: p itself when it is a directory,
// otherwise the nearest existing directory above it.
func dirOf(p string) string {
	if info, err := os.Stat(p); err == nil && info.IsDir() {
		return p
	}
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if info, err := os.Stat(d); err == nil && info.IsDir() {
			return d
		}
		if d == filepath.Dir(d) {
			return d
		}
	}
}

// matters reports whether a change of name concerns a watched path: the
// path itself, something in it, or a directory on the way to it.
func (w *watcher) matters(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, p := range w.paths {
		if name == p || strings.HasPrefix(name, p+string(filepath.Separator)) || strings.HasPrefix(p, name+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// run calls changed for every change that matters until ctx is done; a
// directory that appeared on the way to a path is watched from then on.
func (w *watcher) run(ctx context.Context, changed func()) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			if w.matters(ev.Name) {
				if ev.Has(fsnotify.Create) {
					w.mu.Lock()
					paths := append([]string(nil), w.paths...)
					w.mu.Unlock()
					w.set(paths) // watch nearer directories that now exist
				}
				changed()
			}
		case _, ok := <-w.w.Errors:
			if !ok {
				return
			}
		}
	}
}

func (w *watcher) close() { _ = w.w.Close() }
