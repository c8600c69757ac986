package cli

import (
	"runtime/debug"
	"testing"
)

func TestVersionOf(t *testing.T) {
	for _, tt := range []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"a release", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.0"}}, "strata v1.4.0 go1.26.0"},
		{"a checkout with changes", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.time", Value: "2026-11-25T19:00:00Z"}, {Key: "vcs.modified", Value: "true"},
		}}, "strata (devel) (0123456789abcdef-dirty, 2026-11-25T19:00:00Z) go1.26.0"},
		{"a clean checkout", debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.1-0.20261125190000-0123456789ab"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "false"},
		}}, "strata v1.4.1-0.20261125190000-0123456789ab (0123456789abcdef) go1.26.0"},
	} {
		if got := versionOf(&tt.info); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
