package delta_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/delta"
	"github.com/strata-config/strata/internal/layertest"
	"github.com/strata-config/strata/merge"
	"github.com/strata-config/strata/partial"
)

// TestSmallest: Smallest leaves out what Between keeps only because the
// layers write it differently, a value the defaults give anyway, and
// still turns the first layer into the second after finalize.
func TestSmallest(t *testing.T) {
	tests := []struct {
		name     string
		from, to string
		overlay  string // when set, to is merge(from, overlay)
		defaults config.Config
		between  string // Between(from, to), written
		want     string // Smallest(from, to, defaults), written
	}{
		{name: "the default of run written out", to: "[tools.'*']\nrun = \"ask\"\n", defaults: config.Default(),
			between: "[tools.'*']\nrun = \"ask\"\n", want: ""},
		{name: "the default of enable written out", to: "[tools.'*']\nenable = true\n", defaults: config.Default(),
			between: "[tools.'*']\nenable = { state = true, allow_toggle = \"any\" }\n", want: ""},
		{name: "an unset of what the default gives anyway", from: "[tools.'*']\nrun = \"ask\"\nresult = \"ask\"\nsummary = \"s\"\n", to: "[tools.'*']\nsummary = \"s\"\n", defaults: config.Default(),
			between: "unset = [\"tools.'*'.result\", \"tools.'*'.run\"]\n\n[tools.'*']\n", want: "unset = [\"tools.'*'.result\"]\n\n[tools.'*']\n"},
		{name: "a new tool keeps what it sets", to: "[tools.grep]\nrun = \"ask\"\n", defaults: config.Default(),
			between: "[tools.grep]\nrun = \"ask\"\n", want: "[tools.grep]\nrun = \"ask\"\n"},
		{name: "a removed tool is removed", from: "[tools.old]\nrun = \"skip\"\n", defaults: config.Default(),
			between: "unset = [\"tools.old\"]\n", want: "unset = [\"tools.old\"]\n"},
		{name: "a host's default options written out", to: "[tools.t.options]\nlist = [\"d\"]\nn = 1\n", defaults: hostDefaults(),
			between: "[tools.t.options]\nlist = [\"d\"]\nn = 1\n", want: "[tools.t.options]\nn = 1\n"},
		{name: "an overlay over the user's layer", from: "[tools.grep]\nrun = \"ask\"\ncommand = \"rg\"\n[tools.old]\nrun = \"skip\"\n",
			overlay: "[tools.grep]\nrun = \"unattended\"\ncommand = \"rg\"\n[tools.'*']\nrun = \"ask\"\n", defaults: config.Default(),
			between: "[tools.'*']\nrun = \"ask\"\n\n[tools.grep]\nrun = \"unattended\"\n", want: "[tools.grep]\nrun = \"unattended\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := layertest.MustDecode(t, "from.toml", tt.from, partial.TOML)
			to := layertest.MustDecode(t, "to.toml", tt.to, partial.TOML)
			if tt.overlay != "" {
				overlay := layertest.MustDecode(t, "overlay.toml", tt.overlay, partial.TOML)
				to = *merge.Layers(&from, &overlay)
			}
			for _, c := range []struct {
				what, want string
				d          *config.Partial
			}{{"Between", tt.between, delta.Between(&from, &to)}, {"Smallest", tt.want, delta.Smallest(&from, &to, tt.defaults)}} {
				text, err := codec.Encode(c.d, partial.TOML)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(c.want, string(text)); diff != "" {
					t.Errorf("%s mismatch (-want +got):\n%s", c.what, diff)
				}
				want, _ := partial.Finalize(&to, tt.defaults)
				got, _ := partial.Finalize(merge.Layers(&from, c.d), tt.defaults)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("finalize(merge(from, %s)) differs from finalize(to) (-to +merged):\n%s", c.what, diff)
				}
			}
			if !delta.Empty(delta.Smallest(&to, &to, tt.defaults)) {
				t.Error("Smallest(to, to) is not empty")
			}
		})
	}
}
