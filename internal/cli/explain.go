package cli

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/budget"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/lock"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/resolve"
)

// explainTool prints strata resolve --explain TOOL: every field of the
// tool's final definition and where it came from, whether the run's tool
// set holds it, how it loads, and what it costs in c.Export.
func explainTool(e *env, w *strataWorkspace, c *resolveCmd) error {
	ex, err := w.ExplainTool(e.Ctx, c.Explain)
	if err != nil {
		return err
	}
	// What tools and servers wrote is data: escaped where a terminal would
	// act on it.
	counts := budget.OpenCounts(w.CacheDir())
	cost := tokensText(ex, c.Export, counts)
	writeCounts(e, counts)
	_, err = io.WriteString(e.Stdout, explanationText(ex, cost, time.Now()))
	return err
}

// tokensText says what the tool's definition costs in the export dialect,
// counted with counts.
func tokensText(ex strata.ToolExplanation, format string, counts *budget.Counts) string {
	d := ex.Definition
	d.Load = ""
	if ex.Choice.Load == config.LoadDeferred {
		d.Load = config.LoadDeferred
	}
	one := &resolve.Catalog{Tools: []resolve.Definition{d}}
	written, err := export.Write(one, export.Dialect(format), config.Budget{})
	if err != nil || len(written.Entries) == 0 || written.Entries[0].Name == export.SearchTool {
		return fmt.Sprintf("not written in %s (its name is not one %s takes)", format, format)
	}
	st := counts.Measure(&export.Written{Dialect: written.Dialect, Entries: written.Entries[:1]}, config.Budget{})
	return fmt.Sprintf("%d in %s", st.Total+st.Deferred, format)
}

// explanationText renders an explanation for people; tokens says what the
// tool costs, now dates the cache entry.
func explanationText(ex strata.ToolExplanation, tokens string, now time.Time) string {
	var b strings.Builder
	d := ex.Definition
	fmt.Fprintf(&b, "%s\n", d.Name)
	b.WriteString("source:\n")
	fmt.Fprintf(&b, "  %s (%s)\n", d.Source, ex.Source)
	switch {
	case ex.Discovered == nil:
		b.WriteString("  defined by the config: its parameters are its schema, its text the config's\n")
	default:
		how := map[string]string{"mcp": "tools/list of the MCP server", "describe": "--describe of the executable", "jp": "JP schema action of the command", "builtin": "the host's builtin"}[string(d.Exec.Kind)]
		if d.Exec.Tool != "" && d.Exec.Tool != d.Name {
			how += ", as " + d.Exec.Tool
		}
		fmt.Fprintf(&b, "  discovered: %s\n", how)
		if ex.Origin.Program != "" {
			fmt.Fprintf(&b, "  program: %s\n", relativeText(ex.Origin.Program))
		}
		if ex.Origin.Cache != "" {
			fmt.Fprintf(&b, "  answer: the cache entry %s, %s old\n", rel(ex.Origin.Cache), age(now.Sub(ex.Origin.Written)))
		} else if ex.Origin.Program != "" {
			b.WriteString("  answer: asked now\n")
		}
	}
	b.WriteString("definition:\n")
	field := func(name, final, discovered string, changed []string) {
		if final == "" && discovered == "" {
			return
		}
		fmt.Fprintf(&b, "  %s: %s\n", name, final)
		switch {
		case ex.Discovered == nil:
		case len(changed) > 0:
			fmt.Fprintf(&b, "    discovered: %s\n", discovered)
			fmt.Fprintf(&b, "    changed by: %s\n", strings.Join(changed, ", "))
		case final == discovered:
			b.WriteString("    as discovered\n")
		default:
			fmt.Fprintf(&b, "    discovered: %s\n", discovered)
		}
	}
	var base struct{ title, text, input, output, annotations string }
	if dd := ex.Discovered; dd != nil {
		base.title, base.input, base.output, base.annotations = dd.Title, lock.Canonical(dd.InputSchema.JSON()), lock.Canonical(dd.OutputSchema.JSON()), lock.Canonical(dd.Annotations)
		base.text = dd.Description
		if dd.Summary != "" {
			base.text = config.Join(dd.Summary, dd.Description)
		}
	}
	keys := func(prefix ...string) []string {
		var out []string
		for _, k := range ex.Keys {
			for _, p := range prefix {
				if len(k.Path) >= 3 && k.Path[2] == p {
					out = append(out, k.Path.String())
					break
				}
			}
		}
		return out
	}
	text := keys("summary", "description")
	if ex.Expanded {
		for i, k := range text {
			if strings.HasSuffix(k, ".description") {
				text[i] += " ({{description}} expanded)"
			}
		}
	}
	field("title", quote(d.Title), quote(base.title), nil)
	field("description", quote(lock.ModelText(d)), quote(base.text), text)
	field("inputSchema", lock.Canonical(d.InputSchema.JSON()), base.input, ex.Tightened)
	field("outputSchema", lock.Canonical(d.OutputSchema.JSON()), base.output, nil)
	field("annotations", lock.Canonical(d.Annotations), base.annotations, nil)
	fmt.Fprintf(&b, "  run: %s\n  result: %s\n", d.Run, d.Result)
	if p := d.Policy; p != nil && (len(p.Run.Rules) > 1 || len(p.Result.Rules) > 1 || len(p.Run.Skipped)+len(p.Result.Skipped) > 0 ||
		!d.Run[0].IsCatchAll() || !d.Result[0].IsCatchAll()) {
		// Rules beyond a mode alone: each, and where it was written.
		b.WriteString("policy:\n")
		policyText(&b, "run", d.Policy.Run.Key, d.Policy.Run.Skipped, d.Policy.Run.Rules)
		policyText(&b, "result", d.Policy.Result.Key, d.Policy.Result.Skipped, d.Policy.Result.Rules)
	}
	if len(ex.Tightened) > 0 {
		b.WriteString("tightened:\n")
		for _, t := range ex.Tightened {
			fmt.Fprintf(&b, "  %s\n", t)
		}
	}
	b.WriteString("config:\n")
	if len(ex.Keys) == 0 {
		b.WriteString("  no key of the config names the tool\n")
	}
	for _, k := range ex.Keys {
		for line := range strings.SplitSeq(strings.TrimSuffix(k.String(), "\n"), "\n") {
			fmt.Fprintf(&b, "  %s\n", relativeText(line))
		}
	}
	b.WriteString("lock:\n")
	l := ex.Lock
	switch {
	case l.Policy == "off":
		b.WriteString("  off (lock.policy = \"off\")\n")
	case l.Path == "":
		b.WriteString("  no lock applies\n")
	case l.Change == nil:
		fmt.Fprintf(&b, "  locked in %s, unchanged\n", rel(l.Path))
	case l.Held():
		fmt.Fprintf(&b, "  held back by %s: %s\n", rel(l.Path), l.Change)
	default:
		fmt.Fprintf(&b, "  %s (%s): %s\n", rel(l.Path), l.Policy, l.Change)
	}
	b.WriteString("tool set and budget:\n")
	ch := ex.Choice
	set, in := ch.Set, "in"
	if set == "" {
		set = "none"
	}
	if !ch.In {
		in = "out"
	}
	fmt.Fprintf(&b, "  tool set: %s: %s (%s)\n", set, in, ch.Why)
	fmt.Fprintf(&b, "  load: %s (%s)\n", ch.Load, ch.LoadFrom)
	fmt.Fprintf(&b, "  tokens: %s\n", tokens)
	return b.String()
}

// policyText lists the rules of a tool's policy kind, written at key, in
// the order they are tried, each with where it was written, and the rules
// of '*' that do not apply to it.
func policyText[M config.Mode](b *strings.Builder, kind string, key partial.Path, skipped []resolve.Skipped, rules []resolve.PolicyRule[M]) {
	if len(key) == 0 {
		fmt.Fprintf(b, "  %s: no rule: the implicit { mode = \"ask\" }\n", kind)
		return
	}
	fmt.Fprintf(b, "  %s (%s), the first that holds decides:\n", kind, key)
	catchAll := false
	for _, r := range rules {
		fmt.Fprintf(b, "    %s %s: %s\n", r.Key[len(r.Key)-1], relativeText(cmp.Or(r.At.String(), "default")), r.Rule)
		catchAll = catchAll || r.IsCatchAll()
	}
	if !catchAll {
		b.WriteString("    then the implicit { mode = \"ask\" }\n")
	}
	for _, s := range skipped {
		fmt.Fprintf(b, "    left out: %s (%s): %s\n", s.Key, relativeText(cmp.Or(s.At.String(), "default")), s.Why)
	}
}

// quote writes s as a JSON string; "" stays "".
func quote(s string) string {
	if s == "" {
		return ""
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// age says how old a cache entry is, coarsely.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "less than a minute"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " days"
}
