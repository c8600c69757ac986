package signin

import (
	"net/url"
	"testing"
)

// FuzzResource reads any text as a server's URL: a resource is
// canonical (its own resource), keeps the URL's origin, and never panics.
func FuzzResource(f *testing.F) {
	for _, s := range []string{"https://example.com/mcp", "HTTP://[::1]:80/a/", "https://u:p@h:443/p?q#f", "http://h/%2F/", "https://h:0", "ftp://x", "https://", "https://h/a%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Resource(s)
		if err != nil {
			return
		}
		again, err := Resource(r)
		if err != nil || again != r {
			t.Fatalf("Resource(%q) = %q, whose resource is %q (%v)", s, r, again, err)
		}
		u, _ := url.Parse(r)
		if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
			t.Fatalf("Resource(%q) = %q, not an http(s) URL with a host", s, r)
		}
	})
}

// FuzzParseKey reads any bytes as a PEM private key: an error or a P-256
// key, never a panic.
func FuzzParseKey(f *testing.F) {
	f.Add([]byte("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n"))
	f.Add([]byte("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n"))
	f.Add([]byte("not pem"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if k, err := ParseKey(b); err == nil && k == nil {
			t.Fatal("no key and no error")
		}
	})
}
