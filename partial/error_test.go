package partial_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/partial"
)

func TestErrorText(t *testing.T) {
	tests := []struct {
		name       string
		err        *partial.Error
		one, multi string
	}{
		{
			name: "everything",
			err:  &partial.Error{Source: "a.toml", Line: 2, Column: 5, Path: partial.Path{"tools", "a.b", "rnu"}, Msg: "unknown key", Hint: "did you mean run?", Snippet: "    rnu = 1"},
			one:  "a.toml:2:5: tools.'a.b'.rnu: unknown key; did you mean run?",
			multi: "a.toml:2:5: tools.'a.b'.rnu: unknown key; did you mean run?\n" +
				" 2 |     rnu = 1\n" +
				"   |     ^",
		},
		{
			name:  "source without position",
			err:   &partial.Error{Source: "--cfg #2", Path: partial.Path{"tools"}, Msg: "expected a table"},
			one:   "--cfg #2: tools: expected a table",
			multi: "--cfg #2: tools: expected a table",
		},
		{
			name:  "message only",
			err:   &partial.Error{Msg: "nothing to say"},
			one:   "nothing to say",
			multi: "nothing to say",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.one, tt.err.Error()); diff != "" {
				t.Errorf("Error() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.multi, tt.err.Render()); diff != "" {
				t.Errorf("Render() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorsSummaryAndAll(t *testing.T) {
	a := &partial.Error{Msg: "a"}
	b := &partial.Error{Msg: "b"}
	c := &partial.Error{Msg: "c"}
	tests := []struct {
		name string
		errs partial.Errors
		want string
	}{
		{"one", partial.Errors{a}, "a"},
		{"two", partial.Errors{a, b}, "a (and 1 more problem)"},
		{"three", partial.Errors{a, b, c}, "a (and 2 more problems)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.errs.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			wrapped := fmt.Errorf("loading: %w", tt.errs)
			if got := partial.All(wrapped); len(got) != len(tt.errs) || got[0] != a {
				t.Errorf("All(wrapped) = %v, want the %d problems", got, len(tt.errs))
			}
			var one *partial.Error
			if !errors.As(wrapped, &one) || one != a {
				t.Errorf("errors.As found %v, want the first problem", one)
			}
		})
	}
	if got := partial.All(errors.New("plain")); len(got) != 1 || got[0].Msg != "plain" {
		t.Errorf("All(plain error) = %v", got)
	}
	if got := partial.All(nil); got != nil {
		t.Errorf("All(nil) = %v", got)
	}
}
