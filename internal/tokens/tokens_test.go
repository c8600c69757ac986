package tokens

import (
	"strings"
	"testing"
)

// TestCounter: the counter is named by its module (and, in a program,
// the version its build records: a test binary records none), which keys
// the counts budget keeps.
func TestCounter(t *testing.T) {
	if got := Counter(); got != module && !strings.HasPrefix(got, module+"@v") {
		t.Errorf("Counter() = %q, want the tokenizer's module, at its version when the build says", got)
	}
}
