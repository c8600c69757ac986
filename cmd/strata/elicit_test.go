package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCallAnswersAForm: strata call, asking on stdin (--ask, as on a
// terminal), answers server-everything's elicitation form: the server's
// message and each field are asked, by name, Enter takes a
// field's default or leaves an optional one out, an option is taken by
// its number, and the answers go back once the user says so; n declines.
// Without --ask and a terminal, the server is told strata call cannot be
// asked, and does not offer the tool; strata says how to be asked.
func TestCallAnswersAForm(t *testing.T) {
	t.Parallel()
	requireNode(t)
	work, environ := formWorkspace(t)
	call := func(stdin string, args ...string) (string, string, int) {
		t.Helper()
		return strataInput(t, work, environ, stdin, append([]string{"call"}, args...)...)
	}

	stdout, stderr, code := call(formFields+"\n", "--ask", "trigger-elicitation-request")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"The MCP server everything asks: Please provide inputs for the following fields:\n",
		"everything asks: String (Your full, legal name): Ada Lovelace\n",
		"everything asks: Boolean (Agree to the terms and conditions): [Enter: leave it out] (yes or no) y\n",
		"everything asks: String with default (Favorite first line of a story): [Enter: \"It was a dark and stormy night.\"] \n",
		"everything asks: String with email format (Your email address (will be verified, and never shared with anyone else)): [Enter: leave it out] \n",
		"Send these answers to everything? [Y/n] \n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{
		`- Name: Ada Lovelace`, `- Agreed to terms: true`, `- Favorite Integer: 7`, `- Favorite Number: 3.14`,
		`\"firstLine\": \"It was a dark and stormy night.\"`, `\"untitledSingleSelectEnum\": \"Monica\"`,
		`\"untitledMultipleSelectEnum\": [\n      \"Piano\",\n      \"Drums\"\n    ]`, `\"titledSingleSelectEnum\": \"hero-2\"`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the server did not get %s:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "email") {
		t.Errorf("an optional field left empty was sent:\n%s", stdout)
	}

	// n declines.
	stdout, stderr, code = call(formFields+"n\n", "--ask", "trigger-elicitation-request")
	if code != 0 || !strings.Contains(stdout, "User declined to provide the requested information.") {
		t.Errorf("declined: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	// Without a terminal or --ask: not offered.
	if _, stderr, code = call("", "trigger-elicitation-request"); code == 0 || !strings.Contains(stderr, "call trigger-elicitation-request: no such tool") || !strings.Contains(stderr, "or with --ask, tells servers it can be asked") {
		t.Errorf("without --ask: exit %d, stderr:\n%s", code, stderr)
	}
}

// formFields answers server-everything's form, its fields by name:
// birthdate (left out), check, email (left out), firstLine (its
// default), homepage (left out), integer, legacyTitledEnum (default),
// name, number (default), titledMultipleSelectEnum (default),
// titledSingleSelectEnum (its second option), untitledMultipleSelectEnum
// (two), untitledSingleSelectEnum (default). Send's answer follows.
const formFields = "\ny\n\n\n\n7\n\nAda Lovelace\n\n\n2\nPiano, Drums\n\n"

// formWorkspace is a directory and the environment of a user whose
// config serves server-everything, every tool unattended.
func formWorkspace(t *testing.T) (work string, environ []string) {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	work = filepath.Join(dir, "work")
	for _, d := range []string{filepath.Join(home, "strata"), work} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	everything := filepath.Join(repoRoot, "fixtures/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	config := fmt.Sprintf("[tools.'*']\nrun = \"unattended\"\n\n[mcp_servers.everything]\ncommand = \"node\"\nargs = [%q, \"stdio\"]\nexpose = \"all\"\n", everything)
	if err := os.WriteFile(filepath.Join(home, "strata", "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	environ = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "STRATA_CONFIG_HOME=" + filepath.Join(home, "strata"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache")}
	return work, environ
}
