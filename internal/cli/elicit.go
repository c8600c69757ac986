package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/strata-config/strata/internal/jsonv"
	"github.com/strata-config/strata/protocol"
)

// elicitForm answers, for strata call, the elicitation requests (form
// mode) of the MCP servers it calls: it shows the server's name and
// message on w, asks each field of the requested schema by name (the
// order the MCP SDK's decoding leaves; the server's own is lost there),
// one line each (Enter takes the field's default, and leaves out an
// optional field that has none), reads the answers from in, and asks
// whether to send them: Enter or y accepts, n declines. A field is asked
// again until its answer is of its type. stdin ending cancels. The server
// checks what it is sent against its schema. With echo, each answer read
// is written after its question, as a terminal would.
func elicitForm(w io.Writer, in *bufio.Reader, echo bool) func(ctx context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
	var mu sync.Mutex // one form at a time
	return func(_ context.Context, server string, params json.RawMessage) (json.RawMessage, error) {
		mu.Lock()
		defer mu.Unlock()
		p, err := jsonv.Parse(params)
		if err != nil {
			return nil, fmt.Errorf("reading the elicitation request: %w", err)
		}
		if mode, _ := p.Get("mode").Str(); mode != "" && mode != "form" {
			// Only forms are declared: a URL to open is declined.
			return json.Marshal(map[string]string{"action": "decline"})
		}
		message, _ := p.Get("message").Str()
		// Each line of the server's message indented, and its name (a
		// config key) on one line, so that none passes for one of
		// strata's own ("strata: ...").
		server = strings.ReplaceAll(server, "\n", " ")
		fmt.Fprintf(w, "The MCP server %s asks: %s\n", server, strings.ReplaceAll(strings.TrimSpace(message), "\n", "\n  "))
		schema := p.Get("requestedSchema")
		required := map[string]bool{}
		for _, r := range schema.Get("required").Items() {
			if name, ok := r.Str(); ok {
				required[name] = true
			}
		}
		props := schema.Get("properties")
		content := map[string]any{}
		for _, name := range props.Keys() {
			v, ok, err := askField(w, in, echo, server, name, props.Get(name), required[name])
			if err != nil {
				return json.Marshal(map[string]string{"action": "cancel"})
			}
			if ok {
				content[name] = v
			}
		}
		send, err := readLine(w, in, echo, fmt.Sprintf("Send these answers to %s? [Y/n] ", server))
		if err != nil {
			return json.Marshal(map[string]string{"action": "cancel"})
		}
		switch strings.ToLower(send) {
		case "", "y", "yes":
			return json.Marshal(map[string]any{"action": "accept", "content": content})
		}
		return json.Marshal(map[string]string{"action": "decline"})
	}
}

// askField asks the form's field name, of schema field, until the answer
// is one it takes; ok is false for an optional field left out. An empty
// line takes the field's default, leaves an optional field out, or is
// asked again.
func askField(w io.Writer, in *bufio.Reader, echo bool, server, name string, field *jsonv.Value, required bool) (v any, ok bool, err error) {
	typ, _ := field.Get("type").Str()
	q := protocol.Inquiry{ID: name, Text: fieldText(name, field)}
	var options []any
	for _, o := range field.Get("enum").Items() {
		options = append(options, o.Interface())
	}
	for _, o := range field.Get("oneOf").Items() { // titled options
		if c := o.Get("const"); c != nil {
			options = append(options, c.Interface())
		}
	}
	switch {
	case typ == "boolean":
		q.AnswerType = "boolean"
	case len(options) > 0:
		q.AnswerType, q.Options = "select", options
	}
	def := field.Get("default")
	switch {
	case def != nil:
		q.Text += fmt.Sprintf(" [Enter: %s]", def.JSON())
	case !required:
		q.Text += " [Enter: leave it out]"
	}
	for {
		line, err := readLine(w, in, echo, fmt.Sprintf("%s asks: %s ", server, questionText(q)))
		if err != nil {
			return nil, false, err
		}
		switch {
		case line == "" && def != nil:
			return def.Interface(), true, nil
		case line == "" && !required:
			return nil, false, nil
		case line == "":
			fmt.Fprintf(w, "Please answer: %s is required.\n", name)
			continue
		}
		switch {
		case q.AnswerType != "": // yes or no, or one of the options
			v, ok, complaint := answerOf(q, line)
			if ok {
				return v, true, nil
			}
			fmt.Fprintln(w, complaint)
		case typ == "number":
			if f, err := strconv.ParseFloat(line, 64); err == nil {
				return f, true, nil
			}
			fmt.Fprintln(w, "Please answer with a number.")
		case typ == "integer":
			if n, err := strconv.ParseInt(line, 10, 64); err == nil {
				return n, true, nil
			}
			fmt.Fprintln(w, "Please answer with a whole number.")
		case typ == "array":
			var items []string
			for item := range strings.SplitSeq(line, ",") {
				if item = strings.TrimSpace(item); item != "" {
					items = append(items, item)
				}
			}
			return items, true, nil
		default:
			return line, true, nil
		}
	}
}

// fieldText is the question of a form's field: its title (else its
// name), its description, and for a list the options it takes.
func fieldText(name string, field *jsonv.Value) string {
	text := name
	if title, ok := field.Get("title").Str(); ok && strings.TrimSpace(title) != "" {
		text = strings.TrimSpace(title)
	}
	if d, ok := field.Get("description").Str(); ok && strings.TrimSpace(d) != "" {
		text += " (" + strings.TrimSpace(d) + ")"
	}
	// What titled options stand for: oneOf's const and title, or the
	// legacy enumNames beside enum.
	var titled []string
	for _, o := range field.Get("oneOf").Items() {
		if title, ok := o.Get("title").Str(); ok && o.Get("const") != nil {
			titled = append(titled, optionText(o.Get("const"))+" = "+title)
		}
	}
	if names, enum := field.Get("enumNames").Items(), field.Get("enum").Items(); len(names) == len(enum) {
		for i, n := range names {
			if title, ok := n.Str(); ok {
				titled = append(titled, optionText(enum[i])+" = "+title)
			}
		}
	}
	if len(titled) > 0 {
		text += " (" + strings.Join(titled, ", ") + ")"
	}
	if typ, _ := field.Get("type").Str(); typ == "array" {
		var opts []string
		items := field.Get("items")
		for _, o := range items.Get("enum").Items() {
			opts = append(opts, string(o.JSON()))
		}
		for _, o := range items.Get("anyOf").Items() {
			if c := o.Get("const"); c != nil {
				opts = append(opts, string(c.JSON()))
			}
		}
		text += ", separated by commas"
		if len(opts) > 0 {
			text += " (of " + strings.Join(opts, ", ") + ")"
		}
	}
	return text + ":"
}

// optionText is an option as prompt shows it: a string as it is, any
// other value as JSON.
func optionText(v *jsonv.Value) string {
	if s, ok := v.Str(); ok {
		return s
	}
	return string(v.JSON())
}

// readLine writes question on w and reads one line from in; with echo,
// it writes the line read after the question.
func readLine(w io.Writer, in *bufio.Reader, echo bool, question string) (string, error) {
	fmt.Fprint(w, question)
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(w)
		return "", err
	}
	line = strings.TrimSpace(line)
	if echo {
		fmt.Fprintln(w, line)
	}
	return line, nil
}
