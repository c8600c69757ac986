package floors

import (
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHostsKeepOnlyMethodsTheyCall: the hosts of fixtures link the
// methods of strata's types that they call, and no others. Nothing they
// link calls a method through reflect.Value.Method (or MethodByName with
// a name the compiler cannot see), which makes the linker keep every
// exported method of every type a program puts in an interface: Open
// returns *Workspace from a generic function, which is such a type, so a
// host that only resolves and calls would carry Serve, ServeHTTP, Login,
// LockDiff and all they call. fixtures/mcphost carried 5 MB of it (25.4
// MB, 20.3 without) while internal/shape called Equal methods so. The
// error names the chain from the program's start to such a call, as the linker
// marked it (-ldflags=-dumpdep).
func TestHostsKeepOnlyMethodsTheyCall(t *testing.T) {
	for _, host := range []string{"fixtures/confighost", "fixtures/mcphost", "fixtures/host"} {
		t.Run(host, func(t *testing.T) {
			t.Parallel()
			// go test puts its own go first on PATH.
			cmd := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "host"), "-ldflags=-dumpdep", module+"/"+host)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go build: %v\n%.2000s", err, out)
			}
			// Every symbol the linker kept, with what it refers to; the
			// roots are "_" and "".
			edges := map[string][]string{}
			reflective := map[string]bool{}
			for line := range strings.Lines(string(out)) {
				a, b, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " -> ")
				if !ok {
					continue
				}
				var ra, rb bool
				a, ra = symbol(a)
				b, rb = symbol(b)
				edges[a] = append(edges[a], b)
				reflective[a] = reflective[a] || ra
				reflective[b] = reflective[b] || rb
			}
			from := map[string]string{"_": "", "": ""} // what first reached each, breadth first
			queue := []string{"_", ""}
			for len(queue) > 0 {
				s := queue[0]
				queue = queue[1:]
				for _, n := range edges[s] {
					if _, seen := from[n]; !seen {
						from[n] = s
						queue = append(queue, n)
					}
				}
			}
			// A call through reflection makes the linker keep methods, and
			// those it keeps may call through reflection too (reflect's
			// own, dbus's): the causes are those reached by calls alone,
			// with no method kept for a type on the way.
			var causes, kept []string
			for _, s := range slices.Sorted(maps.Keys(reflective)) {
				if !reflective[s] {
					continue
				}
				var chain []string
				cause := true
				for q := s; q != "" && q != "_"; q = from[q] {
					chain = append(chain, q)
					cause = cause && !(strings.HasPrefix(from[q], "type:") && !strings.HasPrefix(q, "type:"))
				}
				slices.Reverse(chain)
				if cause {
					causes = append(causes, s+": "+strings.Join(chain, " → "))
				} else {
					kept = append(kept, s)
				}
			}
			for _, c := range causes {
				t.Errorf("this calls methods through reflection, so the host keeps every exported method of its types: %s", c)
			}
			if len(causes) > 0 || len(kept) > 0 {
				t.Errorf("methods kept so that call through reflection in turn: %s", strings.Join(kept, ", "))
			}
		})
	}
}

// symbol is a symbol of a -dumpdep line without the linker's mark
// ("<UsedInIface>", "<ReflectMethod>"), and whether the mark is
// ReflectMethod.
func symbol(s string) (string, bool) {
	if i := strings.LastIndex(s, " <"); i >= 0 && strings.HasSuffix(s, ">") {
		return s[:i], s[i:] == " <ReflectMethod>"
	}
	return s, false
}
