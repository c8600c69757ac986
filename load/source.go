package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/internal/decode"
	"github.com/strata-config/strata/internal/shape"
	"github.com/strata-config/strata/partial"
)

// HostSource is a layer the host reads from somewhere strata does not look
// itself: an organisation's defaults in a key-value store, the settings a
// host already loads with its own loader (package koanflayer makes Sources
// of koanf's providers). Its values are decoded by the decoder that reads
// files, so a wrong type, an unknown key (with a did-you-mean) or an
// invalid value is reported as it is for a file, with the source's Kind
// and Name in place of the file name.
//
// A HostSource is the host's own, as the environment and --cfg are: no trust
// applies to it. Whatever it reads from a workspace the host must have
// decided to trust.
type HostSource struct {
	// Name says where the values come from, in explanations and problems:
	// "etcd://10.0.0.1:2379/org". It must not be empty.
	Name string
	// Kind labels the layer ([Layer].Kind, [Step].Kind): "koanf". "" is
	// [KindSource]. It must not be the kind of one of strata's own sources
	// (user, env...): code that asks a layer's kind must not mistake a
	// source for a file.
	Kind Kind
	// Above places the layer in the precedence order: right above the
	// layers of this kind, below those of the next. "" means
	// [KindDefault]: above the defaults and below the user file, where an
	// organisation's defaults belong (the user, the workspace and
	// everything above override them). [KindDirectory] puts it above every
	// file and below the environment; [KindCfg], above everything but the
	// flags. Sources with the same Above keep their order, lowest first. A
	// later --cfg NONE drops a source below it, as it drops files.
	Above Kind
	// Text reads each string value as the text of a <NAME>_ variable or a
	// key=value override (see package assign): converted to what the key
	// holds, a boolean, a number, comma-separated list items. For sources
	// that hold nothing but strings: environment variables, most key-value
	// stores. Other values decode as usual.
	Text bool
	// Read returns the layer's values. Tables are maps with string keys
	// (map[string]any, or any map type keyed by strings), whose keys are
	// keys, not dotted paths; values are strings, booleans, numbers
	// (json.Number too), slices and arrays, tables, and nil, which unsets
	// the key as a JSON null does. A [time.Time] is a datetime, which
	// strata's keys do not take. Read is called once per load, with the
	// load's context.
	Read func(ctx context.Context) (map[string]any, error)
	// Watch, when not nil, calls changed each time what Read returns may
	// have changed (a key written in etcd), until ctx is done; it returns
	// once it watches, or with why it cannot. A server of the config
	// (strata serve) watches for as long as it serves, and resolves
	// again on a change as it does when a file changes; without Watch, the
	// source is read again only when something else changes.
	Watch func(ctx context.Context, changed func()) error
}

// Typed returns the [HostSource] named name of a layer the host builds in
// Go rather than as a map: v is a partial, or a pointer to one (the
// host's partial type P, or config.Partial when the host's config is
// strata's model: what it sets, its unsets included), or any other value
// that codec.Encode writes, such as a struct of the host's own with toml
// tags (its zero fields are left out). Its keys are at the root of the
// host's config: a host that mounts strata's model builds its P. Each load
// reads v as it is then; a key v has that the host's config does not is
// an error, as in a file. The layer sits above the defaults; set Above
// to place it elsewhere:
//
//	src := load.Typed("~/.mcphost.yml", &layer)
//	src.Above = load.KindUser
func Typed(name string, v any) HostSource {
	return HostSource{Name: name, Read: func(context.Context) (map[string]any, error) {
		b, err := codec.Encode(v, partial.JSON)
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return nil, err
		}
		return m, nil
	}}
}

// KindSource is the kind of a [HostSource] that names none.
const KindSource Kind = "source"

// ownKinds are the kinds of strata's own sources, in precedence order:
// the places a HostSource may sit above.
var ownKinds = []Kind{KindDefault, KindUser, KindWorkspace, KindDirectory, KindEnv, KindCfg, KindFlags}

// checkSources reports Sources that cannot be placed or named.
func (a *App[P, R]) checkSources() error {
	var errs diag.Errors
	for i, s := range a.Sources {
		where := fmt.Sprintf("load: App.Sources[%d]", i)
		if s.Name != "" {
			where += " (" + s.Name + ")"
		}
		switch {
		case s.Name == "":
			errs = append(errs, &diag.Error{Code: diag.CodeUsage, Source: where, Msg: "has no Name", Hint: "name where its values come from, for explanations and problems"})
		case s.Read == nil:
			errs = append(errs, &diag.Error{Code: diag.CodeUsage, Source: where, Msg: "has no Read"})
		case s.Kind != "" && slices.Contains(ownKinds, s.Kind):
			errs = append(errs, &diag.Error{Code: diag.CodeUsage, Source: where, Msg: fmt.Sprintf("Kind %q is the kind of strata's own %s layers", s.Kind, s.Kind), Hint: "name the kind of the source, such as koanf"})
		case s.Above == KindFlags:
			errs = append(errs, &diag.Error{Code: diag.CodeUsage, Source: where, Msg: "cannot sit above the flags, which are the highest layer", Hint: "use Above: load.KindCfg"})
		case s.Above != "" && !slices.Contains(ownKinds, s.Above):
			errs = append(errs, &diag.Error{Code: diag.CodeUsage, Source: where, Msg: fmt.Sprintf("Above %q is not a kind of strata's own layers", s.Above), Hint: "use default, user, workspace, directory, env or cfg"})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// sources reads the Sources that sit above the layers of kind, in order.
// dir is the working directory, which relative paths are relative to.
func (r *reader[P, R]) sources(ctx context.Context, above Kind, dir string) {
	for _, s := range r.app.Sources {
		if placeOf(s.Above) != above {
			continue
		}
		kind := s.Kind
		if kind == "" {
			kind = KindSource
		}
		label := string(kind) + " " + s.Name
		if err := ctx.Err(); err != nil {
			r.add(&diag.Error{Code: diag.CodeRead, Source: label, Msg: err.Error(), Err: err})
			return
		}
		m, err := s.Read(ctx)
		if err != nil {
			r.add(readError(label, err))
			continue
		}
		p, err := decodeSource[P](label, m, s.Text)
		if err != nil {
			r.add(err)
			continue
		}
		rebase(p, dir)
		r.push(Layer[P]{Kind: kind, Name: s.Name, Partial: p})
	}
}

// readError names the source in the problems of its Read: those it
// positions itself (a *diag.Error or diag.Errors, with their key paths)
// and any other error, its cause kept.
func readError(label string, err error) error {
	var one *diag.Error
	var many diag.Errors
	if !errors.As(err, &one) && !errors.As(err, &many) {
		return &diag.Error{Code: diag.CodeRead, Source: label, Msg: "cannot read: " + err.Error(), Err: err}
	}
	var out diag.Errors
	for _, e := range diag.All(err) {
		if e.Source == "" {
			c := *e
			c.Source = label
			e = &c
		}
		out = append(out, e)
	}
	return out
}

// placeOf is the kind a HostSource with Above k sits above.
func placeOf(k Kind) Kind {
	if k == "" {
		return KindDefault
	}
	return k
}

// decodeSource decodes the values a HostSource read into a layer, with the
// decoder that reads files; label names the source in problems.
func decodeSource[P any](label string, m map[string]any, text bool) (*P, error) {
	t, err := shape.OfPartial(typeOf[P]())
	if err != nil {
		return nil, err
	}
	root, texts, errs := decode.Values(label, m, text)
	if len(errs) > 0 {
		return nil, errs
	}
	p := new(P)
	dec := decode.Decoder{Source: label}
	dec.Root(root, reflect.ValueOf(p).Elem(), t)
	errs = dec.Errs
	// Each string of a text source is an override of its own key, applied
	// to the layer the rest made.
	as := make([]assign.Assignment, len(texts))
	for i, x := range texts {
		as[i] = assign.Assignment{Source: label, Path: x.Path, Op: assign.Set, Value: x.Value}
	}
	errs = append(errs, diag.All(assign.Apply(p, as...))...)
	if len(errs) > 0 {
		return nil, errs
	}
	return p, nil
}
