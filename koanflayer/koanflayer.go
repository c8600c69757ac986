// Package koanflayer joins koanf (github.com/knadh/koanf/v2) and strata
// both ways, so that a host that loads its settings with koanf keeps one
// tree: a koanf instance or provider is a strata layer ([FromKoanf],
// [FromProvider]), and a strata config or layer is a koanf provider
// ([Of]). An organisation's defaults in etcd, Consul, Vault, S3 or behind
// HTTP, read by koanf's providers, become a layer of the tools model, with
// every problem reported as for a file and every value explained as coming
// from that provider; and the resolved tools model loads into the host's
// koanf tree beside its own settings.
//
// The name says what crosses: layers. koanf merges providers in order, one
// layer each, as strata merges its sources; this package makes a koanf
// tree one of strata's layers and a strata config one of koanf's. It is
// its own package so that only hosts that import it build koanf: strata's
// loader does not depend on it.
package koanflayer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/knadh/koanf/v2"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/load"
)

// Kind is the kind of the layers this package makes, as explanations show
// it: "koanf  etcd://127.0.0.1:2379/org (etcd): set "ask"".
const Kind load.Kind = "koanf"

// Option configures a layer made by [FromKoanf] or [FromProvider].
type Option interface{ apply(*layer) }

type option func(*layer)

func (f option) apply(l *layer) { f(l) }

// layer is what the options set.
type layer struct {
	above     load.Kind
	text      bool
	delim     string
	unflatten bool
	cut       []string
}

// Above places the layer right above strata's layers of kind k (see
// load.HostSource.Above). The default, load.KindDefault, is the place of an
// organisation's defaults: above the built-in defaults, below the user's
// file and everything else. load.KindDirectory puts it above every file
// and below the environment.
func Above(k load.Kind) Option { return option(func(l *layer) { l.above = k }) }

// Text reads string values as <NAME>_ variables and key=value overrides
// are read: converted to what the key holds ("false" for a boolean,
// "a,b" for a list). For providers that give nothing but strings: koanf's
// env provider, etcd, Consul.
func Text() Option { return option(func(l *layer) { l.text = true }) }

// Unflatten splits keys at delim into key paths, as key-value stores keep
// them (etcd's "org/tools/grep/run"): koanf keeps such keys whole, and
// reads them as paths only in its Get. Tables that flat and nested keys
// share merge; a key that is both a value and a table is an error.
// Without it, keys are keys, as koanf's Unmarshal reads them: a tool
// named "fs.read" stays one.
func Unflatten(delim string) Option {
	return option(func(l *layer) { l.delim, l.unflatten = delim, delim != "" })
}

// Cut makes the layer the table under keys (after [Unflatten]) rather than
// the whole tree: Cut("org", "strata") for the keys below org/strata/. A
// tree without the table gives an empty layer, as koanf's Cut does.
func Cut(keys ...string) Option {
	return option(func(l *layer) { l.cut = slices.Clone(keys) })
}

// FromKoanf returns a strata layer of the tree of koanf instance k, as it
// is when strata loads. name says what the tree is, in explanations and
// problems: "myapp settings".
func FromKoanf(name string, k *koanf.Koanf, opts ...Option) load.HostSource {
	return source(name, func() (map[string]any, error) {
		if k == nil {
			return nil, errors.New("koanflayer: FromKoanf was given a nil *koanf.Koanf")
		}
		return k.Raw(), nil
	}, opts)
}

// FromProvider returns a strata layer of what koanf provider p reads,
// parsed by pa (nil for providers that give a map: env, posflag, etcd).
// The provider is read each time strata loads. name says where it reads
// from; the layer is named after it and the provider's package:
// "etcd://127.0.0.1:2379/org (etcd)".
//
// koanf's providers take no context: a load that is canceled returns at
// once, and the provider's read ends in the background, within the
// provider's own timeout.
//
// A provider that watches (koanf's etcd, file, Consul and Vault providers
// have a Watch method) makes the layer's Watch: strata serve resolves
// again when the provider says something changed. koanf's watches cannot
// be stopped: once the serving ends, the provider's watch goes on and its
// events are dropped, and a provider watches once (its Watch may refuse a
// second).
func FromProvider(name string, p koanf.Provider, pa koanf.Parser, opts ...Option) load.HostSource {
	if pkg := packageOf(p); pkg != "" {
		name += " (" + pkg + ")"
	}
	s := source(name, func() (map[string]any, error) {
		k := koanf.New(".")
		if err := k.Load(p, pa); err != nil {
			return nil, err
		}
		return k.Raw(), nil
	}, opts)
	if w, ok := p.(watcher); ok {
		s.Watch = func(ctx context.Context, changed func()) error {
			return w.Watch(func(_ any, err error) {
				if err == nil && ctx.Err() == nil {
					changed()
				}
			})
		}
	}
	return s
}

// watcher is a koanf provider that watches what it reads.
type watcher interface {
	Watch(cb func(event any, err error)) error
}

func source(name string, read func() (map[string]any, error), opts []Option) load.HostSource {
	var l layer
	for _, o := range opts {
		o.apply(&l)
	}
	return load.HostSource{
		Name:  name,
		Kind:  Kind,
		Above: l.above,
		Text:  l.text,
		Read: func(ctx context.Context) (map[string]any, error) {
			m, err := readCtx(ctx, read)
			if err != nil {
				return nil, err
			}
			return l.shape(m)
		},
	}
}

// readCtx runs read, returning when ctx is done if read has not.
func readCtx(ctx context.Context, read func() (map[string]any, error)) (map[string]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type result struct {
		m   map[string]any
		err error
	}
	done := make(chan result, 1) // read's goroutine never blocks on it
	go func() {
		m, err := read()
		done <- result{m, err}
	}()
	select {
	case r := <-done:
		return r.m, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// shape unflattens and cuts the tree as the options say.
func (l *layer) shape(m map[string]any) (map[string]any, error) {
	if l.unflatten {
		var errs diag.Errors
		m = unflatten(m, l.delim, nil, &errs)
		if len(errs) > 0 {
			return nil, errs
		}
	}
	for i, k := range l.cut {
		v, ok := m[k]
		if !ok {
			return map[string]any{}, nil
		}
		t, ok := v.(map[string]any)
		if !ok {
			return nil, &diag.Error{Code: diag.CodeType, Path: l.cut[:i+1], Msg: fmt.Sprintf("is not a table but %T, and the layer is cut here", v)}
		}
		m = t
	}
	return m, nil
}

// unflatten returns m with every key split at delim, at every depth.
func unflatten(m map[string]any, delim string, path []string, errs *diag.Errors) map[string]any {
	out := make(map[string]any, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) { // the same problems in the same order, every time
		v := m[k]
		if t, ok := v.(map[string]any); ok {
			v = unflatten(t, delim, append(path[:len(path):len(path)], k), errs)
		}
		parts := strings.Split(k, delim)
		put(out, parts, v, path, errs)
	}
	return out
}

// put sets parts in table t to v, merging tables.
func put(t map[string]any, parts []string, v any, path []string, errs *diag.Errors) {
	for i, k := range parts {
		at := append(path[:len(path):len(path)], parts[:i+1]...)
		old, exists := t[k]
		if i == len(parts)-1 {
			ot, oldTable := old.(map[string]any)
			nt, newTable := v.(map[string]any)
			switch {
			case !exists:
				t[k] = v
			case oldTable && newTable:
				for _, nk := range slices.Sorted(maps.Keys(nt)) {
					put(ot, []string{nk}, nt[nk], at, errs)
				}
			case oldTable || newTable:
				*errs = append(*errs, &diag.Error{Code: diag.CodeType, Path: at, Msg: "is both a value and a table"})
			default:
				*errs = append(*errs, &diag.Error{Code: diag.CodeInvalid, Path: at, Msg: "is set twice"})
			}
			return
		}
		if !exists {
			n := map[string]any{}
			t[k], t = n, n
			continue
		}
		n, ok := old.(map[string]any)
		if !ok {
			*errs = append(*errs, &diag.Error{Code: diag.CodeType, Path: at, Msg: "is both a value and a table"})
			return
		}
		t = n
	}
}

// packageOf names the package of a provider's type: "etcd" for
// *etcd.Etcd.
func packageOf(p koanf.Provider) string {
	t := reflect.TypeOf(p)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Name() == "" {
		return ""
	}
	pkg, _, ok := strings.Cut(t.String(), ".")
	if !ok {
		return ""
	}
	return pkg
}
