package strata_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

func mustDecode(t *testing.T, name, text string, p *config.Partial) {
	t.Helper()
	if err := codec.Decode(name, []byte(text), partial.TOML, p); err != nil {
		t.Fatal(err)
	}
}

// TestWorkspaceOverridesUser is the README's host test: it diffs two
// layers with cmp.Diff and with delta, with no cmp options: the layer an
// overlay adds, and the layer that turns one into the other.
func TestWorkspaceOverridesUser(t *testing.T) {
	var user, workspace config.Partial
	mustDecode(t, "user.toml", "[tools.grep]\nrun = \"ask\"\n[tools.old]\nrun = \"skip\"\n", &user)
	mustDecode(t, "workspace.toml", "[tools.'*']\nrun = \"ask\"\n[tools.grep]\nrun = \"unattended\"\n", &workspace)

	// What the workspace adds to the user's layer; Smallest also leaves out
	// what the defaults give anyway (run = "ask").
	overlay := merge.Layers(&user, &workspace)
	want := config.Partial{}
	want.Tools.Set("grep", config.ToolPartial{Run: partial.Replace(config.RunRule{Mode: config.RunUnattended})})
	if diff := cmp.Diff(want, *delta.Smallest(&user, overlay, config.Default())); diff != "" {
		t.Errorf("smallest delta (-want +got):\n%s", diff)
	}
	want.Tools.Set("*", config.ToolPartial{Run: partial.Replace(config.RunRule{Mode: config.RunAsk})})
	if diff := cmp.Diff(want, *delta.Between(&user, overlay)); diff != "" {
		t.Errorf("delta of the overlay (-want +got):\n%s", diff)
	}
	// The layer that turns one layer into the other also undoes what the
	// workspace does not repeat.
	want.Tools.Remove("old")
	if diff := cmp.Diff(want, *delta.Between(&user, &workspace)); diff != "" {
		t.Errorf("delta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(user, workspace); diff == "" {
		t.Error("the layers should differ")
	}
}

// TestReadmeShowsThisTest holds the README's host test to the one above.
func TestReadmeShowsThisTest(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("layers_test.go")
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(src, []byte("func TestWorkspaceOverridesUser"))
	end := bytes.Index(src[start:], []byte("\n}\n"))
	if start < 0 || end < 0 || !bytes.Contains(readme, src[start:start+end+2]) {
		t.Error("README.md does not show TestWorkspaceOverridesUser as layers_test.go has it")
	}
}
