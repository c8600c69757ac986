package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/kballard/go-shellquote"
	"github.com/strata-config/strata"
)

// loginCmd is strata login.
type loginCmd struct {
	OpenFlags `embed:""`
	List      bool          `help:"List the remote servers of the config and how strata signs in to each (no secret is shown), instead of signing in."`
	NoBrowser bool          `help:"Do not open a browser: open the page strata shows yourself, on any machine; the browser comes back to this machine's 127.0.0.1."`
	Wait      time.Duration `default:"5m" help:"How long to wait for the browser to come back."`
	Server    string        `arg:"" optional:"" help:"The remote server to sign in to (its name under mcp_servers)."`
}

// Validate checks that a server is named, or --list given.
func (c *loginCmd) Validate() error {
	if (c.Server == "") == !c.List {
		return usage(errors.New("name the server to sign in to, or give --list"))
	}
	return c.OpenFlags.Validate()
}

// Run runs strata login.
func (c *loginCmd) Run(e *env) error {
	e, stop := stopOnSignals(e)
	defer stop()
	w, err := open(e, c.OpenFlags)
	if err != nil {
		return err
	}
	defer w.Close()
	if c.List {
		st := w.SignInStatuses(e.Ctx)
		if len(st) == 0 {
			fmt.Fprintln(e.Stdout, "no remote MCP server in the layers applied")
		}
		for _, s := range st {
			fmt.Fprintf(e.Stdout, "%s\t%s\t%s\n", s.Name, s.URL, s.Status)
		}
		return nil
	}
	res, err := w.Login(e.Ctx, c.Server, strata.LoginOptions{
		Browser: !c.NoBrowser,
		Wait:    c.Wait,
		Show: func(url string) {
			fmt.Fprintf(e.Stderr, "strata: to sign in to %s, open this page (strata waits %v for it to come back):\n%s\n", c.Server, c.Wait, url)
		},
	})
	if err != nil {
		return err
	}
	if !res.SignedIn {
		fmt.Fprintf(e.Stdout, "%s answered without asking for a sign-in: it needs none (%d tools)\n", c.Server, res.Tools)
		return nil
	}
	if res.Fallback != nil {
		fmt.Fprintf(e.Stderr, "strata: no OS keychain answered (%v): the sign-in is kept in %s\n", res.Fallback, res.Where)
	}
	fmt.Fprintf(e.Stdout, "signed in to %s: %d tools; the sign-in is kept in %s (strata logout %s forgets it)\n", c.Server, res.Tools, res.Where, shellquote.Join(c.Server))
	return nil
}

// logoutCmd is strata logout.
type logoutCmd struct {
	OpenFlags `embed:""`
	Server    string `arg:"" help:"The remote server to forget the sign-in to: its name under mcp_servers, or its URL."`
}

// Run runs strata logout.
func (c *logoutCmd) Run(e *env) error {
	w, err := open(e, c.OpenFlags)
	if err != nil {
		return err
	}
	defer w.Close()
	found, err := w.Logout(e.Ctx, c.Server)
	if err != nil {
		return err
	}
	if !found {
		fmt.Fprintf(e.Stdout, "strata held no sign-in to %s\n", c.Server)
		return nil
	}
	fmt.Fprintf(e.Stdout, "signed out of %s: strata forgot its sign-in\n", c.Server)
	return nil
}
