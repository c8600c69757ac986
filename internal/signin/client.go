package signin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/kballard/go-shellquote"

	"github.com/strata-config/strata/internal/mcpclient"
	"github.com/strata-config/strata/internal/origin"
	"github.com/strata-config/strata/internal/userdir"
)

// Bounds of the requests of a sign-in (metadata, registration, tokens).
const (
	// MaxResponse bounds what is read of one answer: metadata documents
	// and token responses are a few kilobytes (the SDK and oauth2 read at
	// most 1 MiB of theirs).
	MaxResponse = 1 << 20
	// RequestTimeout bounds each request, so that a sign-in of a run that
	// cannot ask the user (a refresh) holds nothing up for long.
	RequestTimeout = 30 * time.Second
)

// NewClient returns the HTTP client of sign-ins, for a host of environ:
// its proxies, each answer read within MaxResponse, each request within
// RequestTimeout. A request that sends something (a registration, a code,
// a refresh token, a client's secret) is never redirected: a 307 would
// send it again, wherever it points. A GET (a metadata document) may be,
// within 10 redirects, never from https to http.
//
// It sends no credentials of the MCP server: those go only to the server
// (mcpclient.Dial); this client reaches the authorization server.
func NewClient(environ []string) *http.Client {
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = mcpclient.ProxyFrom(environ)
	return &http.Client{
		Transport: bounded{base},
		Timeout:   RequestTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			first := via[0]
			switch {
			case first.Method != http.MethodGet && first.Method != http.MethodHead:
				return fmt.Errorf("%s %s redirected to %s: strata does not send a sign-in's request on", first.Method, origin.Of(first.URL), origin.Of(req.URL))
			case len(via) >= 10:
				return errors.New("stopped after 10 redirects")
			case via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https":
				return fmt.Errorf("redirected from https to %s", req.URL.Scheme)
			}
			return nil
		},
	}
}

// bounded reads at most MaxResponse of each answer, and fails rather
// than cut one that is longer.
type bounded struct{ base http.RoundTripper }

func (b bounded) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = mcpclient.LimitBody(resp.Body, MaxResponse)
	return resp, nil
}

// ErrNoBrowser is the error of [Browser] where no browser command starts.
var ErrNoBrowser = errors.New("no browser to open")

// Browser returns what opens a URL in the user's browser in a host of
// environ: $BROWSER (a command, with %s where the URL goes, else the URL
// last; several may be given, separated by ':'), else xdg-open (open on
// macOS, the URL handler on Windows). The browser runs with the host's
// environment, which it needs (its display); strata does not wait for it
// to exit. The URL is an argument of its own, never shell text.
func Browser(environ []string) func(ctx context.Context, url string) error {
	return func(ctx context.Context, url string) error {
		var cmds [][]string
		if b := userdir.Getenv(environ)("BROWSER"); b != "" {
			for _, c := range strings.Split(b, ":") {
				words, err := shellquote.Split(c)
				if err != nil || len(words) == 0 {
					continue
				}
				placed := false
				for i, w := range words {
					if strings.Contains(w, "%s") {
						words[i], placed = strings.ReplaceAll(w, "%s", url), true
					}
				}
				if !placed {
					words = append(words, url)
				}
				cmds = append(cmds, words)
			}
		} else {
			switch runtime.GOOS {
			case "darwin":
				cmds = [][]string{{"open", url}}
			case "windows":
				cmds = [][]string{{"rundll32", "url.dll,FileProtocolHandler", url}}
			default:
				cmds = [][]string{{"xdg-open", url}}
			}
		}
		for _, c := range cmds {
			cmd := exec.Command(c[0], c[1:]...)
			cmd.Env = environ
			if err := cmd.Start(); err == nil {
				go cmd.Wait()
				return nil
			}
		}
		return ErrNoBrowser
	}
}
