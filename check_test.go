package strata_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/partial"
)

// A host's pair whose model key has another type in each.
type wrongModelPartial struct {
	Assistant struct {
		Model partial.Value[int]  `toml:"model"`
		Tools config.ToolsPartial `toml:"tools"`
	} `toml:"assistant"`
}

type wrongModel struct {
	Assistant struct {
		Model string       `toml:"model"`
		Tools config.Tools `toml:"tools"`
	} `toml:"assistant"`
}

// A host's pair where the partial misses a key of the resolved type.
type missingPartial struct {
	Assistant struct {
		Tools config.ToolsPartial `toml:"tools"`
	} `toml:"assistant"`
}

// TestCheck: a host's test finds a mismatch of its types or options before
// its program runs, in one line that names the key.
func TestCheck(t *testing.T) {
	var flags HostPartial
	var wrongFlags struct{ Model string }
	tests := []struct {
		name  string
		check func() error
		want  string // "" for no error
	}{
		{"the host's pair", func() error {
			return strata.Check[HostPartial, Host](strata.Mount("assistant"), strata.Flags(&flags))
		}, ""},
		{"strata's own", func() error { return strata.Check[config.Partial, config.Config]() }, ""},
		{"a key of two types", func() error { return strata.Check[wrongModelPartial, wrongModel](strata.Mount("assistant")) },
			"strata: at assistant.model: the partial type has partial.Value[int] where the resolved type has string, which does not match"},
		{"a key the partial lacks", func() error { return strata.Check[missingPartial, wrongModel](strata.Mount("assistant")) },
			"strata: at assistant.model: the resolved type has this key, the partial type has not"},
		{"flags of another type", func() error {
			return strata.Check[HostPartial, Host](strata.Mount("assistant"), strata.Flags(&wrongFlags))
		}, "strata: Flags is a *struct { Model string }, not a *strata_test.HostPartial"},
		{"a mount with no tools", func() error { return strata.Check[HostPartial, Host](strata.Mount("assistant.model")) },
			"strata: Mount assistant.model: not a table of the host's config"},
		{"a mount the host lacks", func() error { return strata.Check[HostPartial, Host](strata.Mount("helper")) },
			"strata: Mount helper: the host's config has no key helper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			if err := tt.check(); err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if strings.Contains(got, "\n") {
				t.Errorf("more than one line: %q", got)
			}
		})
	}
}
