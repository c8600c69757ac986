package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/strata-config/strata/internal/termtext"
)

// Call is one tool call a client made, as the call log and the metrics
// see it.
type Call struct {
	Time     time.Time
	Client   string // the client's session
	Tool     string
	Server   string // the MCP server that ran it; "" for a local tool
	Duration time.Duration
	// Outcome is "ok", "error" (the tool's or the server's), "refused"
	// (by strata: an unknown tool, bad arguments), "input" (it waits for
	// the client's answer) or "cancelled".
	Outcome string
	// Arguments are the call's arguments, when the log was asked for
	// them; nil otherwise.
	Arguments json.RawMessage
	// Decision is the call's decision (call.Decision as JSON, which holds
	// no argument), when strata made one.
	Decision json.RawMessage
}

// Observer keeps the counts a metrics scraper reads, and writes the call
// log: one JSON object a line, never the arguments unless asked.
type Observer struct {
	// Log, when not nil, receives the call log.
	Log io.Writer

	mu    sync.Mutex
	calls map[callKey]*callCount
}

type callKey struct{ tool, server, outcome string }

type callCount struct {
	n       int64
	seconds float64
}

// Record counts c and writes it to the log.
func (o *Observer) Record(c Call) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.calls == nil {
		o.calls = map[callKey]*callCount{}
	}
	k := callKey{c.Tool, c.Server, c.Outcome}
	cc := o.calls[k]
	if cc == nil {
		cc = &callCount{}
		o.calls[k] = cc
	}
	cc.n++
	cc.seconds += c.Duration.Seconds()
	if o.Log == nil {
		return
	}
	line, err := json.Marshal(struct {
		Time       string          `json:"time"`
		Client     string          `json:"client"`
		Tool       string          `json:"tool"`
		Server     string          `json:"server,omitempty"`
		DurationMS float64         `json:"duration_ms"`
		Outcome    string          `json:"outcome"`
		Arguments  json.RawMessage `json:"arguments,omitempty"`
		Decision   json.RawMessage `json:"decision,omitempty"`
	}{c.Time.UTC().Format(time.RFC3339Nano), c.Client, c.Tool, c.Server, float64(c.Duration.Microseconds()) / 1000, c.Outcome, c.Arguments, c.Decision})
	if err == nil {
		// Tool and server names are the config's and the servers' text:
		// the same JSON, with what a terminal acts on escaped.
		_, _ = o.Log.Write(termtext.JSON(append(line, '\n')))
	}
}

// Health is the state of one MCP server, for the health endpoint.
type Health struct {
	Server string `json:"server"`
	// State is "running", "starting", "failed" or "stopped" (not
	// started yet, or ended: it starts at the next call).
	State string `json:"state"`
	// Error is why a server failed: the text of its error, which holds
	// no secret's value (a secret.String prints its reference) and
	// nothing of the server's stderr, which only strata's own stderr
	// shows. A server starting again after it failed keeps it.
	Error string `json:"error,omitempty"`
	// FailedStarts counts the starts of the server that failed in a
	// row; Retry (RFC 3339) is the earliest time a failed server is
	// started again, when a client asks for it.
	FailedStarts int    `json:"failed_starts,omitempty"`
	Retry        string `json:"retry,omitempty"`
}

// HealthHandler answers with the servers' states as JSON:
// {"status":"ok","servers":[...]}, "degraded" when a server failed (its
// error says why). The gateway is up whatever its servers' states, and
// answers 200: a failed server fails its own calls only.
func HealthHandler(servers func() []Health) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := servers()
		if h == nil {
			h = []Health{}
		}
		status := "ok"
		for _, s := range h {
			if s.Error != "" {
				status = "degraded"
			}
		}
		b, err := json.Marshal(struct {
			Status  string   `json:"status"`
			Servers []Health `json:"servers"`
		}{status, h})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(termtext.JSON(append(b, '\n')))
	})
}

// MetricsHandler answers with the counts in Prometheus's text format
// (version 0.0.4): the calls by tool, server and outcome, their total
// duration, and the servers' states.
func (o *Observer) MetricsHandler(servers func() []Health) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		o.mu.Lock()
		keys := make([]callKey, 0, len(o.calls))
		for k := range o.calls {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, c := keys[i], keys[j]
			return a.tool+"\x00"+a.server+"\x00"+a.outcome < c.tool+"\x00"+c.server+"\x00"+c.outcome
		})
		b.WriteString("# HELP strata_tool_calls_total Tool calls, by tool, MCP server and outcome.\n# TYPE strata_tool_calls_total counter\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "strata_tool_calls_total{tool=%s,server=%s,outcome=%s} %d\n", label(k.tool), label(k.server), label(k.outcome), o.calls[k].n)
		}
		b.WriteString("# HELP strata_tool_call_seconds_total Time spent in tool calls, by tool, MCP server and outcome.\n# TYPE strata_tool_call_seconds_total counter\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "strata_tool_call_seconds_total{tool=%s,server=%s,outcome=%s} %g\n", label(k.tool), label(k.server), label(k.outcome), o.calls[k].seconds)
		}
		o.mu.Unlock()
		b.WriteString("# HELP strata_server_up Whether an MCP server is running (1) or not (0).\n# TYPE strata_server_up gauge\n")
		for _, h := range servers() {
			up := 0
			if h.State == "running" {
				up = 1
			}
			fmt.Fprintf(&b, "strata_server_up{server=%s,state=%s} %d\n", label(h.Server), label(h.State), up)
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = io.WriteString(w, b.String())
	})
}

// label is a Prometheus label value, quoted and escaped: what a
// terminal acts on is written as its escape first (termtext.Line), then
// the format's own escapes.
func label(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(termtext.Line(s)) + `"`
}
