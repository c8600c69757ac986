//go:build linux

package main

import (
	"strings"
	"testing"
)

// TestCallAnswersAFormOnATerminal: on a terminal, without --ask, strata
// call tells the servers it can be asked, and asks server-everything's
// form there (the answers typed ahead; a terminal echoes them itself).
func TestCallAnswersAFormOnATerminal(t *testing.T) {
	t.Parallel()
	requireNode(t)
	work, environ := formWorkspace(t)
	stdout, stderr, code := strataTyped(t, work, environ, formFields+"\n", "call", "trigger-elicitation-request")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "The MCP server everything asks: Please provide inputs for the following fields:\n") ||
		!strings.Contains(stderr, "everything asks: String (Your full, legal name): everything asks:") {
		t.Errorf("the form was not asked on the terminal (its answers not echoed by strata):\n%s", stderr)
	}
	if !strings.Contains(stdout, "- Name: Ada Lovelace") || !strings.Contains(stdout, `\"titledSingleSelectEnum\": \"hero-2\"`) {
		t.Errorf("the server did not get the answers:\n%s", stdout)
	}
}
