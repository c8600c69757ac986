package resolve

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
)

// Trust decides whether a program the config names may run.
type Trust interface {
	// Allow reports whether program, named at key path (tools.x.command,
	// discover.dirs.0, mcp_servers.y.command), may run; when it may not,
	// why says why and how to allow it.
	Allow(path partial.Path, program string) (ok bool, why string)
}

// TrustAll lets everything run.
type TrustAll struct{}

// Allow lets everything run.
func (TrustAll) Allow(partial.Path, string) (bool, string) { return true, "" }

// Trusted lists what the user trusts; strata keeps it in trusted.toml in
// the user's config directory, out of reach of any workspace.
type Trusted struct {
	// Workspaces are roots of workspaces whose files may run programs.
	Workspaces []string `toml:"workspaces"`
	// Checksums are "sha256:<hex>" of programs that may run wherever they
	// come from.
	Checksums []string `toml:"checksums"`
}

// TrustedFile is the name of the trust list in the user's config
// directory.
const TrustedFile = "trusted.toml"

type trustedPartial struct {
	Workspaces partial.List[string] `toml:"workspaces" strata:"append"`
	Checksums  partial.List[string] `toml:"checksums" strata:"append"`
}

// ReadTrusted reads a trust list; a missing file is an empty list.
func ReadTrusted(path string) (Trusted, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Trusted{}, nil
	}
	if err != nil {
		return Trusted{}, &diag.Error{Source: path, Msg: "cannot read: " + err.Error()}
	}
	var p trustedPartial
	if err := load.Decode(path, data, partial.TOML, &p); err != nil {
		return Trusted{}, err
	}
	return partial.Finalize(&p, Trusted{})
}

// Write writes the trust list to path.
func (t Trusted) Write(path string) error {
	p, err := partial.From[trustedPartial](t, Trusted{})
	if err != nil {
		return err
	}
	b, err := partial.Encode(p, partial.TOML)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Checksum returns "sha256:<hex>" of the file at path.
func Checksum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// Policy is strata's trust policy over a loaded config: what the user
// global file, the environment, --cfg and flags say may run; what
// workspace and directory files bring may run only in a trusted workspace,
// or when the program's checksum is pinned.
type Policy struct {
	Result  *load.Result[config.Partial, config.Config]
	Trusted Trusted
	// All trusts the workspace for this run (--trust).
	All bool
}

// Allow implements Trust.
func (p *Policy) Allow(path partial.Path, program string) (bool, string) {
	if p.Result == nil {
		return true, ""
	}
	if pinned, ok := p.pinned(path); ok {
		sum, err := Checksum(program)
		if err == nil && sum == pinned {
			return true, ""
		}
		return false, fmt.Sprintf("the program %s does not match the checksum %s pinned for it", program, pinned)
	}
	if p.All {
		return true, ""
	}
	from, ok := p.untrusted(path)
	if !ok {
		return true, ""
	}
	root := p.Result.Root
	if root != "" && slices.Contains(p.Trusted.Workspaces, root) {
		return true, ""
	}
	sum, err := Checksum(program)
	if err == nil && slices.Contains(p.Trusted.Checksums, sum) {
		return true, ""
	}
	why := fmt.Sprintf("set in %s, a workspace you have not trusted", from)
	if path[0] == "discover" || err != nil {
		why += fmt.Sprintf("; to allow it, run strata trust (in %s) or pass --trust", orHere(root))
	} else {
		why += fmt.Sprintf("; to allow it, run strata trust (in %s), pass --trust, or pin the program: strata trust --checksum %s", orHere(root), program)
	}
	return false, why
}

// pinned returns the checksum a trusted layer pins for the MCP server at
// path (mcp_servers.<name>.command).
func (p *Policy) pinned(path partial.Path) (string, bool) {
	if len(path) != 3 || path[0] != "mcp_servers" {
		return "", false
	}
	sum := p.Result.Config.MCPServers[path[1]].Checksum
	if sum == "" {
		return "", false
	}
	if _, untrusted := p.untrusted(partial.Path{"mcp_servers", path[1], "checksum"}); untrusted {
		return "", false // a workspace cannot vouch for itself
	}
	return sum, true
}

func orHere(root string) string {
	if root == "" {
		return "this directory"
	}
	return root
}

// untrusted returns the untrusted layer that decides path, if any.
func (p *Policy) untrusted(path partial.Path) (string, bool) {
	if len(path) == 3 && path[0] == "discover" && path[1] == "dirs" {
		n, err := strconv.Atoi(path[2])
		if err != nil {
			return "", false
		}
		origins := dirOrigins(p.Result.Layers)
		if n < len(origins) && isUntrusted(origins[n].Kind) {
			where := origins[n].Name
			if d := origins[n].Doc; d != nil {
				if line, _, ok := d.Locate(partial.Path{"discover", "dirs"}); ok {
					where = fmt.Sprintf("%s:%d", where, line)
				}
			}
			return where, true
		}
		return "", false
	}
	ex, err := p.Result.Explain(path)
	if err != nil {
		return "", false
	}
	for _, s := range ex.Steps {
		if s.Wins && isUntrusted(s.Kind) {
			where := s.Name
			if s.Line > 0 {
				where = fmt.Sprintf("%s:%d", s.Name, s.Line)
			}
			return where, true
		}
	}
	return "", false
}

func isUntrusted(k load.Kind) bool { return k == load.KindWorkspace || k == load.KindDirectory }

// dirOrigins replays the layers' discover.dirs to tell which layer each
// final directory comes from.
func dirOrigins(layers []load.Layer[config.Partial]) []load.Layer[config.Partial] {
	type item struct {
		dir   string
		layer load.Layer[config.Partial]
	}
	var cur []item
	for _, l := range layers {
		if l.Dropped {
			continue
		}
		d := l.Partial.Discover.Dirs
		if d.Base != partial.BaseLower {
			cur = nil
		}
		var head []item
		for _, x := range d.Head {
			head = append(head, item{x, l})
		}
		cur = append(head, cur...)
		for _, x := range d.Tail {
			cur = append(cur, item{x, l})
		}
		if d.Dedup {
			var out []item
			seen := map[string]bool{}
			for _, it := range cur {
				if !seen[it.dir] {
					seen[it.dir] = true
					out = append(out, it)
				}
			}
			cur = out
		}
	}
	out := make([]load.Layer[config.Partial], len(cur))
	for i, it := range cur {
		out[i] = it.layer
	}
	return out
}
