// Package gateway is what strata serve --http puts in front of its MCP
// endpoint, apart from MCP itself: who may call (a bearer token, checked
// in constant time), from where (the Host and Origin headers, against DNS
// rebinding and pages in a browser), and the token's file. It links no
// MCP SDK.
package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Guard admits the requests of clients that may use the gateway and
// answers the others: 403 for a Host the gateway does not serve (a DNS
// rebinding: a name the attacker controls, resolving to this machine) or
// an Origin other than its own and those allowed (a page in a browser),
// 401 (with WWW-Authenticate: Bearer) for a request without the token.
// A refusal closes the connection (Connection: close), before any of the
// request's body is read: a client without the token holds no connection
// and sends nothing strata reads but its headers. An admitted request
// carries its token's [Principal], and its connection is marked admitted
// for [Conns].
type Guard struct {
	// Token is the bearer token every request must carry; when empty,
	// every request is refused, unless NoToken.
	Token string
	// NoToken admits requests without a token.
	NoToken bool
	// Hosts are the host names (no port) requests may name in their Host
	// header. Empty allows any: a gateway bound to a non-loopback address
	// whose names the operator did not list.
	Hosts []string
	// Origins are the origins (scheme://host[:port]) that a request with
	// an Origin header may come from, besides the gateway's own (the
	// scheme and the Host of the request). A request without Origin (not
	// a browser's) is not checked.
	Origins []string
}

// LoopbackHosts are the names of a gateway bound to a loopback address.
var LoopbackHosts = []string{"localhost", "127.0.0.1", "::1"}

// Wrap returns next behind g.
func (g *Guard) Wrap(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte("Bearer " + g.Token))
	principal := ""
	if !g.NoToken {
		principal = string(want[:])
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r.Host) {
			refuse(w, "Forbidden: this server does not serve the host "+quote(r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o, r) {
			refuse(w, "Forbidden: requests from the origin "+quote(o)+" are not allowed", http.StatusForbidden)
			return
		}
		got := sha256.Sum256([]byte(r.Header.Get("Authorization")))
		if !g.NoToken && (g.Token == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="strata"`)
			refuse(w, "Unauthorized: send the token of strata serve as Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		admit(r.Context())
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, principal)))
	})
}

// refuse answers a request the guard refuses, and closes its connection
// without reading any of its body (net/http would read some, to find its
// end, however long the client takes to send it).
func refuse(w http.ResponseWriter, msg string, code int) {
	w.Header().Set("Connection", "close")
	http.Error(w, msg, code)
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

type principalKey struct{}

// Principal is who the token of a request a Guard admitted says it is:
// the same value for every request with the same token ("" when the
// gateway takes requests without one); ok is false for a request no
// Guard admitted. It is a key (a hash of the token), not text to print.
func Principal(ctx context.Context) (p string, ok bool) {
	p, ok = ctx.Value(principalKey{}).(string)
	return p, ok
}

// hostAllowed reports whether the Host header names the gateway.
func (g *Guard) hostAllowed(host string) bool {
	if len(g.Hosts) == 0 {
		return true
	}
	name := hostname(host)
	for _, h := range g.Hosts {
		if strings.EqualFold(strings.Trim(h, "[]"), name) {
			return true
		}
	}
	return false
}

// originAllowed reports whether a request from origin o may reach the
// gateway: its own origin (what the request's Host says), or one listed.
func (g *Guard) originAllowed(o string, r *http.Request) bool {
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false // "null", an opaque origin: a sandboxed page, a file
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	if strings.EqualFold(u.Scheme, scheme) && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, a := range g.Origins {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), strings.TrimSuffix(o, "/")) {
			return true
		}
	}
	return false
}

// hostname is the host of a Host header, without its port and brackets.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.Trim(host, "[]")
}

// quote is s quoted for a message, cut to 100 bytes.
func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return `"` + strings.ToValidUTF8(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s), "?") + `"`
}

// IsLoopback reports whether addr (host:port, as net.Listen takes it)
// binds to loopback only: 127.0.0.0/8, ::1 or localhost. An empty host
// (every address) is not loopback.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
