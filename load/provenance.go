package load

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/internal/suggest"
	"github.com/strata-config/strata/partial"
)

// Explanation tells where the value of one key path comes from.
type Explanation struct {
	Path partial.Path
	// Value is the final value, as TOML writes it inline; "" when the
	// config has none.
	Value string
	// Default is the defaults' value at the path, or "".
	Default string
	// Steps are the layers that say something about the path, lowest
	// first.
	Steps []Step
	// Untrusted are the files of an untrusted workspace that were not
	// applied: whatever they say about the path does not count.
	Untrusted []string
}

// Step is what one layer says about a path.
type Step struct {
	Kind Kind
	// Name is the layer's file path, environment variable or --cfg
	// argument.
	Name string
	// Line and Column locate the key in a file layer; 0 otherwise.
	Line, Column int
	// Action says what the layer does: `set "ask"`, `unset`,
	// `append ["x"]`, `unset tools.grep` (an enclosing key)...
	Action string
	// Wins marks the steps the final value comes from: the last that sets
	// or unsets it, and the appends that follow.
	Wins bool
	// Dropped marks a layer that a later --cfg NONE dropped.
	Dropped bool
}

// Explain tells which layers set key, a dotted key path of the config
// ("tools.grep.run", "assistant.tools.'my tool'.run"), in order, and
// which won. A key the config does not have is an error with a
// did-you-mean.
func (r *Result[P, R]) Explain(key string) (Explanation, error) {
	path, err := partial.ParsePath(key)
	if err != nil {
		return Explanation{}, err
	}
	return r.explain(path)
}

// explain is Explain of a parsed path.
func (r *Result[P, R]) explain(path partial.Path) (Explanation, error) {
	pt, err := shape.OfPartial(typeOf[P]())
	if err != nil {
		return Explanation{}, err
	}
	if err := checkPath(pt, path); err != nil {
		return Explanation{}, err
	}
	ex := Explanation{Path: path}
	for _, p := range r.Probes {
		if p.Untrusted {
			ex.Untrusted = append(ex.Untrusted, p.Path)
		}
	}
	ex.Value = valueText(reflect.ValueOf(&r.Config).Elem(), path)
	ex.Default = valueText(reflect.ValueOf(&r.defaults).Elem(), path)
	for i, l := range r.Layers {
		if r.index != nil && !r.indexed(i, path) {
			continue
		}
		act, base, ok := mention(reflect.ValueOf(l.Partial).Elem(), pt, path, 0)
		if !ok {
			continue
		}
		s := Step{Kind: l.Kind, Name: l.Name, Action: act, Dropped: l.Dropped}
		if l.Doc != nil {
			s.Line, s.Column, _ = l.Doc.Locate(path)
		}
		ex.Steps = append(ex.Steps, s)
		if !l.Dropped && base {
			for j := range ex.Steps {
				ex.Steps[j].Wins = false
			}
		}
		if !l.Dropped {
			ex.Steps[len(ex.Steps)-1].Wins = true
		}
	}
	return ex, nil
}

// String renders an explanation for people, one step a line.
func (e Explanation) String() string {
	var b strings.Builder
	value := e.Value
	if value == "" {
		value = "(not set)"
	}
	fmt.Fprintf(&b, "%s = %s\n", e.Path, value)
	if e.Default != "" {
		fmt.Fprintf(&b, "  %-9s %s\n", KindDefault, "default "+e.Default)
	}
	for _, s := range e.Steps {
		where := s.Name
		if s.Line > 0 {
			where = fmt.Sprintf("%s:%d:%d", s.Name, s.Line, s.Column)
		}
		mark := ""
		switch {
		case s.Dropped:
			mark = "  (dropped by --cfg NONE)"
		case s.Wins:
			mark = "  <- wins"
		}
		fmt.Fprintf(&b, "  %-9s %s: %s%s\n", s.Kind, where, s.Action, mark)
	}
	if len(e.Steps) == 0 && e.Default == "" {
		b.WriteString("  no layer sets it\n")
	}
	for _, f := range e.Untrusted {
		fmt.Fprintf(&b, "  %-9s %s: not applied: the workspace is not trusted\n", "untrusted", f)
	}
	return b.String()
}

// checkPath reports a path that does not name a key of the model.
func checkPath(t *shape.Type, path partial.Path) error {
	for i, k := range path {
		switch t.Kind {
		case shape.Struct:
			f, ok := t.Field(k)
			if !ok {
				hint := ""
				if s := closest(k, t.Keys); s != "" {
					hint = "did you mean " + path[:i].Append(s).String() + "?"
				}
				return &diag.Error{Code: diag.CodeUnknownKey, Path: path[:i+1], Msg: "unknown key", Hint: hint}
			}
			t = f.Type
		case shape.Map:
			t = t.Elem
		case shape.Nested:
			t = t.Elem
			if t.Kind == shape.Struct {
				f, ok := t.Field(k)
				if !ok {
					return &diag.Error{Code: diag.CodeUnknownKey, Path: path[:i+1], Msg: "unknown key"}
				}
				t = f.Type
			}
		default:
			return nil // inside a value or a free-form table: anything goes
		}
	}
	return nil
}

// mention says what layer value v (of type t) does at path[i:]. base is
// true when the layer decides the value on its own (sets, unsets or
// replaces it) rather than adding to what lower layers give.
func mention(v reflect.Value, t *shape.Type, path partial.Path, i int) (action string, base, ok bool) {
	if i == len(path) {
		return whole(v, t, path)
	}
	key := path[i]
	switch t.Kind {
	case shape.Struct:
		f, ok := t.Field(key)
		if !ok {
			return "", false, false
		}
		return mention(v.FieldByIndex(f.Index), f.Type, path, i+1)
	case shape.Map:
		e := v.Field(t.At.Entries).MapIndex(reflect.ValueOf(key))
		switch {
		case e.IsValid() && e.IsNil():
			return "unset " + path[:i+1].String(), true, true
		case e.IsValid():
			act, b, ok := mention(e.Elem(), t.Elem, path, i+1)
			if !ok && v.Field(t.At.Reset).Bool() {
				return "reset " + path[:i].String(), true, true
			}
			return act, b, ok
		case v.Field(t.At.Reset).Bool():
			return "reset " + path[:i].String(), true, true
		}
	case shape.Nested:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			return "unset " + path[:i].String(), true, true
		case shape.StatePresent:
			return mention(v.Field(t.At.V).Elem(), t.Elem, path, i)
		}
	case shape.Any:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			return "unset " + path[:i].String(), true, true
		case shape.StatePresent:
			tbl := v.Field(t.At.Table)
			switch {
			case shape.Op(v, t) == shape.OpReplace:
				return "set " + path[:i].String() + " to " + show(v.Field(t.At.V).Interface()), true, true
			case tbl.IsNil():
				act, b := anyAction(v, t, path[:i])
				return act + " (" + path[:i].String() + ")", b, true
			}
			act, b, ok := mention(tbl.Elem(), t.Elem, path, i)
			if !ok && v.Field(t.At.Base).Uint() != shape.BaseLower {
				return "reset " + path[:i].String(), true, true
			}
			return act, b, ok
		}
	case shape.Value:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			return "unset " + path[:i].String(), true, true
		case shape.StatePresent:
			return "set " + path[:i].String() + " to " + show(v.Field(t.At.V).Interface()), true, true
		}
	case shape.List:
		if !shape.IsZero(v, t) {
			act, b, _ := whole(v, t, path[:i])
			return act + " (" + path[:i].String() + ")", b, true
		}
	}
	return "", false, false
}

// listItem returns the text of the final value at path when path names an
// item of a list field (discover.dirs.1): the item's layer is the one that
// gave that value, not the last that mentions the list.
func listItem(t *shape.Type, path partial.Path, config reflect.Value) (string, bool) {
	for i := 0; i < len(path); i++ {
		switch t.Kind {
		case shape.Struct:
			f, ok := t.Field(path[i])
			if !ok {
				return "", false
			}
			t = f.Type
		case shape.Map:
			t = t.Elem
		case shape.Nested: // takes no key: the struct inside does
			t = t.Elem
			i--
		case shape.List:
			if i != len(path)-1 {
				return "", false
			}
			text := valueText(config, path)
			return text, text != ""
		default:
			return "", false
		}
	}
	return "", false
}

// gives reports whether layer v adds an item whose text is item to the
// list at path[:len(path)-1].
func gives(v reflect.Value, t *shape.Type, path partial.Path, item string) bool {
	v, t, used, ok := shape.Find(v, t, path[:len(path)-1])
	if !ok || used != len(path)-1 || t.Kind != shape.List {
		return false
	}
	items := v.Field(t.At.Items)
	for j := 0; j < items.Len(); j++ {
		if text(items.Index(j).Interface()) == item {
			return true
		}
	}
	return false
}

// whole says what a layer does with the value v at the end of path at.
func whole(v reflect.Value, t *shape.Type, at partial.Path) (string, bool, bool) {
	switch t.Kind {
	case shape.Value:
		switch v.Field(t.At.State).Uint() {
		case shape.StatePresent:
			return "set " + show(v.Field(t.At.V).Interface()), true, true
		case shape.StateUnset:
			return "unset", true, true
		}
	case shape.List:
		if shape.IsZero(v, t) {
			break
		}
		head, tail := shape.Head(v, t), shape.Tail(v, t)
		var parts []string
		base := false
		switch v.Field(t.At.Base).Uint() {
		case shape.BaseEmpty:
			if x, ok := shorthand(v, t); ok {
				return "set " + show(x), true, true // run = "ask"
			}
			return "replace with " + show(v.Field(t.At.Items).Interface()), true, true
		case shape.BaseDefault:
			parts, base = append(parts, "unset"), true
		}
		if head.Len() > 0 {
			parts = append(parts, "prepend "+show(head.Interface()))
		}
		if tail.Len() > 0 {
			parts = append(parts, "append "+show(tail.Interface()))
		}
		if v.Field(t.At.Dedup).Bool() {
			parts = append(parts, "dedup")
		}
		return strings.Join(parts, ", then "), base, true
	case shape.Any:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			return "unset", true, true
		case shape.StatePresent:
			act, b := anyAction(v, t, at)
			return act, b, true
		}
	case shape.Nested:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			return "unset", true, true
		case shape.StatePresent:
			return whole(v.Field(t.At.V).Elem(), t.Elem, at)
		}
	case shape.Map:
		if v.Field(t.At.Reset).Bool() {
			return "reset and set entries", true, true
		}
		if v.Field(t.At.Entries).Len() > 0 {
			return "set entries", false, true
		}
	case shape.Struct:
		if shape.IsZero(v, t) {
			break
		}
		reset := shape.IsReset(v, t)
		if m, ok := v.Interface().(partial.ValueMarshaler); ok {
			// A table with a short form (enable = true) is told as written.
			if x, err := m.MarshalValue(); err == nil {
				if reset {
					return "set " + show(x), true, true
				}
				return "set keys " + show(x), false, true
			}
		}
		if reset {
			return "reset and set keys", true, true
		}
		return "set keys", false, true
	}
	return "", false, false
}

// shorthand returns the scalar a list that replaces with one item is
// written as, when its items have one (see partial.Shorthander).
func shorthand(v reflect.Value, t *shape.Type) (any, bool) {
	items := v.Field(t.At.Items)
	if !t.Elem.Shorthand || items.Len() != 1 || v.Field(t.At.Dedup).Bool() {
		return nil, false
	}
	return items.Index(0).Interface().(partial.Shorthander).Shorthand()
}

// anyAction says what present free-form value v (of type t) at path at does, and
// whether it decides the value on its own.
func anyAction(v reflect.Value, t *shape.Type, at partial.Path) (string, bool) {
	a := v.Interface().(partial.Any)
	var act string
	switch shape.Op(v, t) {
	case shape.OpReplace:
		return "set " + show(a.V), true
	case shape.OpTable:
		switch {
		case a.Base == partial.BaseEmpty:
			return "replace with " + show(shape.ApplyAny(v, t, nil, nil)), true
		case a.Fill != nil:
			act = "set keys, starting from " + show(a.Fill) + " where nothing is set"
		default:
			act = "set keys"
		}
	case shape.OpWrap:
		var parts []string
		if !isEmpty(a.Head) {
			parts = append(parts, "prepend "+show(a.Head))
		}
		if !isEmpty(a.Tail) || isEmpty(a.Head) {
			parts = append(parts, "append "+show(a.Tail))
		}
		act = strings.Join(parts, " and ")
		if a.Fill != nil {
			act += ", starting from " + show(a.Fill) + " where nothing is set"
		}
	case shape.OpFill:
		act = "set " + show(a.Fill) + " where nothing is set"
	}
	if a.Base == partial.BaseDefault {
		return "reset and " + act, true
	}
	return act, false
}

func isEmpty(x any) bool {
	switch x := x.(type) {
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	}
	return x == nil
}

// text renders a value for an explanation.
func text(v any) string { return show(v) }

// show renders the value v for an explanation: a secret.String as its
// reference, as it writes itself.
func show(v any) string {
	s, err := codec.Text(v)
	if err != nil || s == "" {
		return fmt.Sprint(v)
	}
	return s
}

// valueText renders the value of resolved value v at path, or "".
func valueText(v reflect.Value, path partial.Path) string {
	for _, k := range path {
		for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
			if v.IsNil() {
				return ""
			}
			v = v.Elem()
		}
		switch v.Kind() {
		case reflect.Struct:
			t, err := shape.Structure(v.Type())
			if err != nil {
				return ""
			}
			f, ok := t.Field(k)
			if !ok {
				return ""
			}
			v = v.FieldByIndex(f.Index)
		case reflect.Map:
			e := v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key()))
			if !e.IsValid() {
				return ""
			}
			v = e
		case reflect.Slice:
			var n int
			if _, err := fmt.Sscan(k, &n); err != nil || n < 0 || n >= v.Len() {
				return ""
			}
			v = v.Index(n)
		default:
			return ""
		}
	}
	if !v.IsValid() || v.IsZero() {
		return ""
	}
	return show(v.Interface())
}

// index is a trie of the key paths layers mention: each node lists the
// layers that mention its path itself.
type index struct {
	layers []int
	kids   map[string]*index
}

func (x *index) child(k string) *index {
	c := x.kids[k]
	if c == nil {
		if x.kids == nil {
			x.kids = map[string]*index{}
		}
		c = &index{}
		x.kids[k] = c
	}
	return c
}

func (x *index) mark(i int) {
	if n := len(x.layers); n == 0 || x.layers[n-1] != i {
		x.layers = append(x.layers, i)
	}
}

// buildIndex records, for every key path a layer mentions, the layers that
// mention it.
func (r *Result[P, R]) buildIndex() {
	pt, err := shape.OfPartial(typeOf[P]())
	if err != nil {
		return
	}
	r.index = &index{}
	for i, l := range r.Layers {
		leaves(reflect.ValueOf(l.Partial).Elem(), pt, r.index, i)
	}
}

// indexed reports whether layer i mentions path, a key enclosing it, or a
// key inside it, according to the index.
func (r *Result[P, R]) indexed(i int, path partial.Path) bool {
	n := r.index
	for _, k := range path {
		if slices.Contains(n.layers, i) {
			return true
		}
		if n = n.kids[k]; n == nil {
			return false
		}
	}
	return n.has(i)
}

// has reports whether layer i mentions x's path or a key inside it.
func (x *index) has(i int) bool {
	if slices.Contains(x.layers, i) {
		return true
	}
	for _, c := range x.kids {
		if c.has(i) {
			return true
		}
	}
	return false
}

// leaves marks layer i on the index node of every leaf that layer value v
// sets or unsets, and of every table it resets.
func leaves(v reflect.Value, t *shape.Type, x *index, i int) {
	switch t.Kind {
	case shape.Struct:
		for _, f := range t.Fields {
			fv := v.FieldByIndex(f.Index)
			if !shape.IsZero(fv, f.Type) {
				leaves(fv, f.Type, x.child(f.Key), i)
			}
		}
	case shape.Map:
		if v.Field(t.At.Reset).Bool() {
			x.mark(i)
		}
		iter := v.Field(t.At.Entries).MapRange()
		for iter.Next() {
			c := x.child(iter.Key().String())
			if iter.Value().IsNil() {
				c.mark(i)
				continue
			}
			leaves(iter.Value().Elem(), t.Elem, c, i)
		}
	case shape.Nested:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			x.mark(i)
		case shape.StatePresent:
			leaves(v.Field(t.At.V).Elem(), t.Elem, x, i)
		}
	case shape.Any:
		switch v.Field(t.At.State).Uint() {
		case shape.StateUnset:
			x.mark(i)
		case shape.StatePresent:
			tbl := v.Field(t.At.Table)
			if tbl.IsNil() || v.Field(t.At.Base).Uint() != shape.BaseLower {
				x.mark(i)
			}
			if !tbl.IsNil() {
				leaves(tbl.Elem(), t.Elem, x, i)
			}
		}
	default:
		if !shape.IsZero(v, t) {
			x.mark(i)
		}
	}
}

// Locate gives a problem with a key path and no source the place of the
// highest layer that sets that path: a file position, an environment
// variable or a --cfg argument. Other problems come back unchanged.
func (r *Result[P, R]) Locate(e *diag.Error) *diag.Error {
	return diag.All(r.locate(diag.Errors{e}))[0]
}

// locate gives finalize's problems the place of the highest layer that
// mentions their path: a file position, an environment variable or a
// --cfg argument.
func (r *Result[P, R]) locate(err error) error {
	pt, e := shape.OfPartial(typeOf[P]())
	if e != nil {
		return err
	}
	var es diag.Errors
	if !errors.As(err, &es) {
		return err
	}
	out := make(diag.Errors, len(es))
	for k, pe := range es {
		out[k] = pe
		if pe.Source != "" || len(pe.Path) == 0 {
			continue
		}
		item, inList := listItem(pt, pe.Path, reflect.ValueOf(&r.Config).Elem())
		for i := len(r.Layers) - 1; i >= 0; i-- {
			// A problem with a key no layer mentions stays unplaced.
			l := r.Layers[i]
			if l.Dropped {
				continue
			}
			if _, _, ok := mention(reflect.ValueOf(l.Partial).Elem(), pt, pe.Path, 0); !ok {
				continue
			}
			if inList && !gives(reflect.ValueOf(l.Partial).Elem(), pt, pe.Path, item) {
				continue // a layer that adds other items to the list
			}
			c := *pe
			if l.Doc != nil {
				located := codec.LocateErrors(&c, l.Doc)
				out[k] = diag.All(located)[0]
			} else {
				c.Source = string(l.Kind) + " " + l.Name
				out[k] = &c
			}
			break
		}
	}
	return out
}

func closest(s string, candidates []string) string { return suggest.Closest(s, candidates) }
