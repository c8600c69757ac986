package strata_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
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

// A host that keeps its settings beside strata's, at the root of its
// file: strata's model embedded in each of its types.
type embeddedPartial struct {
	config.Partial
	Model partial.Value[string] `toml:"model"`
}

type embedded struct {
	config.Config
	Model string `toml:"model"`
}

type missingModel struct{ config.Config }

type embeddedPointer struct {
	*config.Partial
	Model partial.Value[string] `toml:"model"`
}

type inlineNamed struct {
	Assistant config.Partial        `toml:",inline"`
	Model     partial.Value[string] `toml:"model"`
}

type twice struct {
	config.Partial
	Tools config.ToolsPartial `toml:"tools"`
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
			"strata: at assistant.model: the partial type has partial.Value[int] where the resolved type has string, which does not match; write partial.Value[string] in the partial type (or int in the resolved type)"},
		{"a key the partial lacks", func() error { return strata.Check[missingPartial, wrongModel](strata.Mount("assistant")) },
			"strata: at assistant.model: the resolved type's table at assistant has this key (its field Model string), the partial type's table at assistant has not; add the field Model partial.Value[string] `toml:\"model\"` to the partial type's table at assistant, or remove it from the resolved type"},
		{"a key the resolved type lacks", func() error { return strata.Check[embeddedPartial, missingModel]() },
			"strata: at model: the partial type strata_test.embeddedPartial has this key (its field Model partial.Value[string]), the resolved type strata_test.missingModel has not; add the field Model string `toml:\"model\"` to the resolved type strata_test.missingModel, or remove it from the partial type"},
		{"strata's model embedded", func() error { return strata.Check[embeddedPartial, embedded]() }, ""},
		{"embedded by pointer", func() error { return strata.Check[embeddedPointer, embedded]() },
			"strata: field strata_test.embeddedPointer.Partial: an embedded struct is read as its fields, and a pointer may be nil: embed config.Partial, not *config.Partial"},
		{"inline on a named field", func() error { return strata.Check[inlineNamed, embedded]() },
			"strata: field strata_test.inlineNamed.Assistant: `toml:\",inline\"` reads a struct's fields in place only when the struct is embedded; embed it (write its type without a field name), or give the field a key"},
		{"a key embedded twice", func() error { return strata.Check[twice, embedded]() },
			"strata: strata_test.twice has two fields with key \"tools\": config.Partial.Tools and strata_test.twice.Tools; give one a toml key of its own"},
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

// TestEmbeddedModel: a host that embeds strata's model in its own types
// declares each setting once; its file, variables and overrides reach its
// keys and strata's at the same level, and a typo among them is told with
// a did-you-mean.
func TestEmbeddedModel(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".myagent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".myagent", "config.toml"), []byte("model = \"medium\"\n[tools.grep]\ncommand = \"grep\"\nrun = \"unattended\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(environ []string, cfg ...string) (*strata.Workspace[embeddedPartial, embedded], error) {
		return strata.Open[embeddedPartial](context.Background(), embedded{Config: config.Default(), Model: "small"},
			strata.Name("myagent"), strata.ConfigHome("~/.myagent"), strata.Dir(t.TempDir()),
			strata.Environ(append([]string{"HOME=" + home}, environ...)), strata.Cfg(cfg...))
	}
	w, err := open([]string{"MYAGENT_TOOLS_GREP_SUMMARY=Search."}, "model=large")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	grep, _ := w.Model().Tools.Effective("grep")
	if got := fmt.Sprint(w.Config().Model, " ", grep.Run(), " ", grep.Summary()); got != "large unattended Search." {
		t.Errorf("model, run, summary = %s", got)
	}
	if ex, err := w.Explain("model"); err != nil || len(ex.Steps) != 2 || !strings.Contains(ex.Value, "large") {
		t.Errorf("Explain(model) = %+v, %v", ex, err)
	}
	_, err = open([]string{"MYAGENT_MODLE=x"}, "tools.grep.rnu=ask")
	for _, want := range []string{"did you mean MYAGENT_MODEL", "did you mean run"} {
		if err == nil || !strings.Contains(err.Error()+diag.Errors(diag.All(err)).Render(), want) {
			t.Errorf("the typos: %v; want %q", err, want)
		}
	}
}
