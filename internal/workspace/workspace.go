// Package workspace loads a host's configuration from every source and
// decides whether its workspace is trusted: the half of strata.Open that
// starts nothing and links no MCP SDK, so that the strata command's
// config, merge, diff and schema run without the SDK's initialisation.
package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/trust"
)

// Settings are what loading is given; strata's options set them.
type Settings struct {
	// Name names the host's files and variables (see strata.Name).
	Name string
	// Mount is where the tools model sits in the host's config.
	Mount   partial.Path
	Dir     string   // where loading starts; "" is the working directory
	Environ []string // nil is the process's environment
	Cfg     []string
	// Overrides are the host's key=value flags, OverrideFlag their name.
	Overrides    []string
	OverrideFlag string
	// LeaveOutside leaves keys outside Mount to the host; EnvPrefix names
	// the configuration's variables (see load.App).
	LeaveOutside bool
	EnvPrefix    string
	Flags        any // *P
	// Store is the user's trust list; TrustOnce trusts the workspace for
	// this load, and TrustHint says how to trust it, in messages.
	Store      *trust.Store
	TrustOnce  bool
	TrustHint  func(load.Untrusted) string
	Provenance bool
	UnknownEnv load.EnvPolicy
	Input      func(ctx context.Context, id, description string, password bool) (string, error)
	Sources    []load.Source
	Limits     load.Limits
}

// Loaded is a loaded configuration and the trust decided for it.
type Loaded[P, R any] struct {
	Result  *load.Result[P, R]
	Environ []string
	// List is the user's trust list as it was read.
	List trust.List
	// Root is the workspace root, or the directory loading started in
	// outside a workspace; Trusted reports whether it is trusted.
	Root    string
	Trusted bool
}

// Load loads the configuration of a host whose resolved config type is R
// and partial type P, with defaults as the lowest layer.
func Load[P, R any](ctx context.Context, defaults R, s Settings) (*Loaded[P, R], error) {
	var flags *P
	if s.Flags != nil {
		f, ok := s.Flags.(*P)
		if !ok {
			return nil, fmt.Errorf("strata: Flags is a %T, not a *%s", s.Flags, reflect.TypeFor[P]())
		}
		flags = f
	}
	environ := s.Environ
	if environ == nil {
		environ = os.Environ()
	}
	dir := s.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("strata: the working directory: %w", err)
		}
		dir = wd
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	list, err := s.Store.Read()
	if err != nil {
		return nil, err
	}
	var t load.Trust = list
	if s.TrustOnce {
		root, err := load.WorkspaceRoot(dir, s.Name)
		if err != nil {
			return nil, err
		}
		if root == "" {
			root = dir
		}
		t = trust.Once{List: list, Root: root}
	}
	app := &load.App[P, R]{
		Name: s.Name, Defaults: defaults, Dir: dir, Environ: environ, Cfg: s.Cfg, Flags: flags,
		Overrides: s.Overrides, OverrideFlag: s.OverrideFlag, EnvPrefix: s.EnvPrefix,
		Provenance: s.Provenance, MCPServers: s.Mount.Append("mcp_servers"),
		Trust: t, TrustHint: s.TrustHint, UnknownEnv: s.UnknownEnv, Input: s.Input, Sources: s.Sources, Limits: s.Limits,
	}
	if s.LeaveOutside {
		app.Checked = s.Mount.Append()
	}
	res, err := app.Load(ctx)
	if err != nil {
		return nil, err
	}
	root := res.Root
	if root == "" {
		root = dir
	}
	return &Loaded[P, R]{Result: res, Environ: environ, List: list, Root: root, Trusted: t.Trusts(root)}, nil
}

// Explain says which layers set key, a dotted key path of the host's
// config, in order, and which wins.
func (l *Loaded[P, R]) Explain(key string) (load.Explanation, error) {
	path, err := partial.ParsePath(key)
	if err != nil {
		return load.Explanation{}, err
	}
	return l.Result.Explain(path)
}
