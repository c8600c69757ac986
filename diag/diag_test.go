package diag_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/partial"
)

func TestErrorText(t *testing.T) {
	tests := []struct {
		name       string
		err        *diag.Error
		one, multi string
	}{
		{
			name: "everything",
			err:  &diag.Error{Source: "a.toml", Line: 2, Column: 5, Path: partial.Path{"tools", "a.b", "rnu"}, Msg: "unknown key", Hint: "did you mean run?", Snippet: "    rnu = 1"},
			one:  "a.toml:2:5: tools.'a.b'.rnu: unknown key; did you mean run?",
			multi: "a.toml:2:5: tools.'a.b'.rnu: unknown key; did you mean run?\n" +
				" 2 |     rnu = 1\n" +
				"   |     ^",
		},
		{
			name:  "source without position",
			err:   &diag.Error{Source: "--cfg #2", Path: partial.Path{"tools"}, Msg: "expected a table"},
			one:   "--cfg #2: tools: expected a table",
			multi: "--cfg #2: tools: expected a table",
		},
		{
			name:  "message only",
			err:   &diag.Error{Msg: "nothing to say"},
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
	a := &diag.Error{Msg: "a"}
	b := &diag.Error{Msg: "b"}
	c := &diag.Error{Msg: "c"}
	tests := []struct {
		name string
		errs diag.Errors
		want string
	}{
		{"one", diag.Errors{a}, "a"},
		{"two", diag.Errors{a, b}, "a (and 1 more problem)"},
		{"three", diag.Errors{a, b, c}, "a (and 2 more problems)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.errs.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			wrapped := fmt.Errorf("loading: %w", tt.errs)
			if got := diag.All(wrapped); len(got) != len(tt.errs) || got[0] != a {
				t.Errorf("All(wrapped) = %v, want the %d problems", got, len(tt.errs))
			}
			var one *diag.Error
			if !errors.As(wrapped, &one) || one != a {
				t.Errorf("errors.As found %v, want the first problem", one)
			}
		})
	}
	if got := diag.All(errors.New("plain")); len(got) != 1 || got[0].Msg != "plain" {
		t.Errorf("All(plain error) = %v", got)
	}
	if got := diag.All(nil); got != nil {
		t.Errorf("All(nil) = %v", got)
	}
}

func TestAllKeepsTheCause(t *testing.T) {
	plain := errors.New("plain")
	got := diag.All(fmt.Errorf("reading: %w", context.Canceled))
	if len(got) != 1 || !errors.Is(got[0], context.Canceled) {
		t.Errorf("All(wrapped context.Canceled) = %v; errors.Is(_, context.Canceled) must hold", got)
	}
	if diff := cmp.Diff([]*diag.Error{{Msg: "plain", Err: plain}}, diag.All(plain)); diff != "" {
		t.Errorf("All(plain) mismatch (-want +got):\n%s", diff)
	}
}
