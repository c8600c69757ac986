package strata

import (
	"fmt"
	"reflect"

	"github.com/strata-config/strata/partial"
)

// Check reports, in one line, what of the host's types and options [Open]
// would refuse when the program runs: a partial type P that is not the
// partial of the resolved type R (see [partial.CheckPair]), a [Flags] layer
// that is not a *P, a [Mount] that is not a key path of R holding strata's
// tools model. It reads no file; a host's test calls it with the options
// the host opens with:
//
//	func TestConfigTypes(t *testing.T) {
//		if err := strata.Check[HostPartial, Host](strata.Mount("assistant"), strata.Flags(&flags)); err != nil {
//			t.Fatal(err)
//		}
//	}
func Check[P, R any](opts ...Option) error {
	var s settings
	for _, o := range opts {
		o.apply(&s)
	}
	if s.mountErr != nil {
		return fmt.Errorf("strata: Mount: %w", s.mountErr)
	}
	if err := partial.CheckPair[P, R](); err != nil {
		return err
	}
	if s.Flags != nil {
		if _, ok := s.Flags.(*P); !ok {
			return fmt.Errorf("strata: Flags is a %s, not a *%s", reflect.TypeOf(s.Flags), reflect.TypeFor[P]())
		}
	}
	var r R
	_, err := modelOf(&r, s.Mount)
	return err
}
