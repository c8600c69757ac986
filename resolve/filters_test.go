package resolve_test

import (
	"testing"

	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/resolve"
)

// TestServerFilters: Codex's enabled_tools and disabled_tools decide which
// of a server's tools are used at all (the allow list first, then the
// deny list); expose, which of those join the catalog under their own
// names.
func TestServerFilters(t *testing.T) {
	fs := config.MCPServer{EnabledTools: config.ToolNames{"read_file", "list_directory"}, DisabledTools: config.ToolNames{"list_directory"}}
	remote := config.MCPServer{}
	quiet := config.MCPServer{Expose: config.Expose{None: true}}
	off := config.MCPServer{EnabledTools: config.ToolNames{}}
	for _, tc := range []struct {
		what      string
		got, want bool
	}{
		{"fs allows read_file", resolve.Allows(fs, "read_file"), true},
		{"fs allows list_directory (denied after allowed)", resolve.Allows(fs, "list_directory"), false},
		{"fs allows write_file (not in enabled_tools)", resolve.Allows(fs, "write_file"), false},
		{"fs exposes read_file", resolve.Exposes(fs, "read_file"), true},
		{"fs exposes list_directory", resolve.Exposes(fs, "list_directory"), false},
		{"remote allows anything", resolve.Allows(remote, "x"), true},
		{"remote exposes x (no expose: all, the default)", resolve.Exposes(remote, "x"), true},
		{"quiet exposes nothing (expose none)", resolve.Exposes(quiet, "x"), false},
		{"quiet allows x (expose none leaves source = mcp.quiet.x)", resolve.Allows(quiet, "x"), true},
		{"off allows nothing (enabled_tools = [])", resolve.Allows(off, "x"), false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %v, want %v", tc.what, tc.got, tc.want)
		}
	}
}
