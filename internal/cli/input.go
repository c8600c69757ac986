package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// terminalInput asks for VS Code inputs (${input:id}) on the terminal of
// stdin, writing the question to stderr; a password is read without echo.
// It is nil when stdin is not a terminal: such an input is then an error.
func terminalInput(e *env) func(ctx context.Context, id, description string, password bool) (string, error) {
	f, ok := e.Stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return func(_ context.Context, id, description string, password bool) (string, error) {
		fmt.Fprintf(e.Stderr, "%s (input %s): ", strings.TrimSpace(description), id)
		if password {
			b, err := term.ReadPassword(int(f.Fd()))
			fmt.Fprintln(e.Stderr)
			return string(b), err
		}
		line, err := bufio.NewReader(f).ReadString('\n')
		if err != nil && (err != io.EOF || line == "") {
			return "", err
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
}

// isTerminal reports whether r is a terminal.
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
