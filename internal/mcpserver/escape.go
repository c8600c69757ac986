package mcpserver

import (
	"net/http"

	"github.com/strata-config/strata/internal/termtext"
)

// escaped is the response writer of the MCP endpoint over HTTP: every
// JSON message and event it carries is written as termtext.JSON escapes
// it, so that what a server, a file or a client wrote (a description,
// an error, a log message) reaches a client with no character a
// terminal acts on: the same JSON to a parser. strata's own transport
// over stdio does the same to each line.
type escaped struct {
	http.ResponseWriter
	out termtext.JSONWriter
}

// escapeResponses returns w, its body escaped.
func escapeResponses(w http.ResponseWriter) http.ResponseWriter {
	e := &escaped{ResponseWriter: w}
	e.out.W = w
	return e
}

func (e *escaped) Write(p []byte) (int, error) { return e.out.Write(p) }

// Flush sends what was written: an event stream flushes each event.
func (e *escaped) Flush() {
	if f, ok := e.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the writer underneath.
func (e *escaped) Unwrap() http.ResponseWriter { return e.ResponseWriter }
