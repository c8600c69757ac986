package origin

import (
	"net"
	"net/url"
	"testing"
)

func TestOf(t *testing.T) {
	tests := []struct {
		a, b string
		same bool
	}{
		{"https://example.com/mcp", "https://example.com:443/other", true},
		{"http://example.com/mcp", "http://EXAMPLE.com:80/", true},
		{"https://example.com./mcp", "https://example.com/mcp", true},
		{"https://example.com/mcp", "http://example.com/mcp", false},
		{"https://example.com/mcp", "https://example.com:8443/mcp", false},
		{"https://example.com/mcp", "https://www.example.com/mcp", false},
		{"http://127.0.0.1:1/mcp", "http://127.0.0.1:2/mcp", false},
		{"http://[::1]:1/", "http://[::1]:1/x", true},
	}
	for _, tt := range tests {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := Of(a) == Of(b); got != tt.same {
			t.Errorf("Of(%s) == Of(%s): %v, want %v (%s, %s)", tt.a, tt.b, got, tt.same, Of(a), Of(b))
		}
	}
}

// TestString: an origin is written as net.JoinHostPort writes its host and
// port.
func TestString(t *testing.T) {
	for _, raw := range []string{"http://[::1]/", "https://example.com/mcp", "http://127.0.0.1:8080/", "https://[fe80::1%25eth0]:9/", "http://localhost/"} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		o := Of(u)
		if got, want := o.String(), o.Scheme+"://"+net.JoinHostPort(o.Host, o.Port); got != want {
			t.Errorf("String of %s = %q, want %q", raw, got, want)
		}
	}
}

func TestClear(t *testing.T) {
	tests := []struct {
		url   string
		clear bool
	}{
		{"http://10.1.2.3/mcp", true},
		{"http://example.com/mcp", true},
		{"http://localhost.example.com/mcp", true},
		{"http://127.0.0.2.example.com/mcp", true},
		{"http://[::ffff:10.0.0.1]/mcp", true},
		{"http://0.0.0.0/mcp", true},
		{"https://10.1.2.3/mcp", false},
		{"http://localhost:3000/mcp", false},
		{"http://LOCALHOST./mcp", false},
		{"http://127.0.0.1/mcp", false},
		{"http://127.255.0.9:8080/mcp", false},
		{"http://[::1]:8080/mcp", false},
		{"http://[::ffff:127.0.0.1]/mcp", false},
		{"HTTP://10.1.2.3/mcp", true},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := Clear(u); got != tt.clear {
			t.Errorf("Clear(%s) = %v, want %v", tt.url, got, tt.clear)
		}
	}
}
