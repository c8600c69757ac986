// Package origin holds the rule of where a remote server's credentials may
// go: only to the origin (scheme, host and port) its URL names, and over
// plain http only to this machine unless the user opts in.
package origin

import (
	"net/netip"
	"net/url"
	"strings"
)

// Origin is the scheme, host and port of a URL, as a browser compares
// them: lower case, the port explicit.
type Origin struct {
	Scheme, Host, Port string
}

// Of returns the origin of u.
func Of(u *url.URL) Origin {
	o := Origin{Scheme: strings.ToLower(u.Scheme), Host: strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), Port: u.Port()}
	if o.Port == "" {
		switch o.Scheme {
		case "http":
			o.Port = "80"
		case "https":
			o.Port = "443"
		}
	}
	return o
}

// String writes o as a URL: "https://example.com:443", "http://[::1]:80".
func (o Origin) String() string {
	host := o.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // as net.JoinHostPort writes an IPv6 address
	}
	return o.Scheme + "://" + host + ":" + o.Port
}

// Loopback reports whether host (a name or an address, without brackets)
// is this machine: localhost, 127.0.0.0/8 or ::1.
func Loopback(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// Clear reports whether u is plain http to a host other than this
// machine: what it sends (the token, the headers, every message) crosses
// the network in clear.
func Clear(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, "http") && !Loopback(u.Hostname())
}
