package strata_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-config/strata"
	"github.com/strata-config/strata/assign"
	"github.com/strata-config/strata/budget"
	"github.com/strata-config/strata/call"
	"github.com/strata-config/strata/codec"
	"github.com/strata-config/strata/config"
	"github.com/strata-config/strata/diag"
	"github.com/strata-config/strata/export"
	"github.com/strata-config/strata/koanflayer"
	"github.com/strata-config/strata/load"
	"github.com/strata-config/strata/lock"
	"github.com/strata-config/strata/partial"
	"github.com/strata-config/strata/policy"
	"github.com/strata-config/strata/protocol"
	"github.com/strata-config/strata/resolve"
	"github.com/strata-config/strata/secret"
	"github.com/strata-config/strata/serve"
	"github.com/strata-config/strata/trust"
)

// valueTypes are the exported types that hold values, by package-qualified
// name; generic types with one instantiation. Every exported type of a
// public package must be here or in notValues, which TestEveryTypeListed
// checks.
var valueTypes = map[string]reflect.Type{
	"strata.Workspace":           reflect.TypeFor[*strata.Workspace[config.Partial, config.Config]](),
	"strata.ServerCheck":         reflect.TypeFor[strata.ServerCheck](),
	"strata.PartialError":        reflect.TypeFor[strata.PartialError](),
	"resolve.ServerError":        reflect.TypeFor[resolve.ServerError](),
	"resolve.Annotations":        reflect.TypeFor[resolve.Annotations](),
	"config.Budget":              reflect.TypeFor[config.Budget](),
	"config.BudgetPartial":       reflect.TypeFor[config.BudgetPartial](),
	"config.ExportLimits":        reflect.TypeFor[config.ExportLimits](),
	"config.ExportLimitsPartial": reflect.TypeFor[config.ExportLimitsPartial](),
	"config.LoadMode":            reflect.TypeFor[config.LoadMode](),
	"config.Toolset":             reflect.TypeFor[config.Toolset](),
	"config.ToolsetPartial":      reflect.TypeFor[config.ToolsetPartial](),
	"config.Toolsets":            reflect.TypeFor[config.Toolsets](),
	"config.ToolsetsPartial":     reflect.TypeFor[config.ToolsetsPartial](),
	"budget.Stats":               reflect.TypeFor[budget.Stats](),
	"budget.Counts":              reflect.TypeFor[*budget.Counts](),
	"budget.ToolCost":            reflect.TypeFor[budget.ToolCost](),
	"budget.ServerCost":          reflect.TypeFor[budget.ServerCost](),
	"export.ToolEntry":           reflect.TypeFor[export.ToolEntry](),
	"export.Written":             reflect.TypeFor[export.Written](),
	"resolve.Choice":             reflect.TypeFor[resolve.Choice](),
	"config.AllowToggle":         reflect.TypeFor[config.AllowToggle](),
	"config.Command":             reflect.TypeFor[config.Command](),
	"config.Config":              reflect.TypeFor[config.Config](),
	"config.Discover":            reflect.TypeFor[config.Discover](),
	"config.DiscoverPartial":     reflect.TypeFor[config.DiscoverPartial](),
	"config.EffectiveTool":       reflect.TypeFor[config.EffectiveTool](),
	"config.Enable":              reflect.TypeFor[config.Enable](),
	"config.EnablePartial":       reflect.TypeFor[config.EnablePartial](),
	"config.Expose":              reflect.TypeFor[config.Expose](),
	"config.MCPServer":           reflect.TypeFor[config.MCPServer](),
	"config.MCPServerPartial":    reflect.TypeFor[config.MCPServerPartial](),
	"config.MCPServers":          reflect.TypeFor[config.MCPServers](),
	"config.MCPServersPartial":   reflect.TypeFor[config.MCPServersPartial](),
	"config.NameScheme":          reflect.TypeFor[config.NameScheme](),
	"config.Parameter":           reflect.TypeFor[config.Parameter](),
	"config.ParameterPartial":    reflect.TypeFor[config.ParameterPartial](),
	"config.Partial":             reflect.TypeFor[config.Partial](),
	"config.Question":            reflect.TypeFor[config.Question](),
	"config.QuestionPartial":     reflect.TypeFor[config.QuestionPartial](),
	"config.ResultMode":          reflect.TypeFor[config.ResultMode](),
	"config.RunMode":             reflect.TypeFor[config.RunMode](),
	"config.Rule":                reflect.TypeFor[config.Rule[config.RunMode]](),
	"config.RunRule":             reflect.TypeFor[config.RunRule](),
	"config.ResultRule":          reflect.TypeFor[config.ResultRule](),
	"config.Rules":               reflect.TypeFor[config.Rules[config.ResultMode]](),
	"config.RunRules":            reflect.TypeFor[config.RunRules](),
	"config.ResultRules":         reflect.TypeFor[config.ResultRules](),
	"config.Matcher":             reflect.TypeFor[config.Matcher](),
	"config.Position":            reflect.TypeFor[config.Position](),
	"config.Clamped":             reflect.TypeFor[config.Clamped](),
	"config.Examples":            reflect.TypeFor[config.Examples](),
	"config.Bounded":             reflect.TypeFor[config.Bounded](),
	"policy.Policy":              reflect.TypeFor[policy.Policy](),
	"policy.Set":                 reflect.TypeFor[policy.Set](),
	"policy.Tools":               reflect.TypeFor[policy.Tools](),
	"policy.Servers":             reflect.TypeFor[policy.Servers](),
	"policy.Launch":              reflect.TypeFor[policy.Launch](),
	"policy.Clamp":               reflect.TypeFor[policy.Clamp](),
	"policy.Identity":            reflect.TypeFor[policy.Identity](),
	"policy.File":                reflect.TypeFor[policy.File](),
	"config.Policy":              reflect.TypeFor[config.Policy](),
	"config.PolicyPartial":       reflect.TypeFor[config.PolicyPartial](),
	"config.Shadow":              reflect.TypeFor[config.Shadow](),
	"config.Source":              reflect.TypeFor[config.Source](),
	"config.SourceKind":          reflect.TypeFor[config.SourceKind](),
	"config.Target":              reflect.TypeFor[config.Target](),
	"config.ToggleScope":         reflect.TypeFor[config.ToggleScope](),
	"config.Tool":                reflect.TypeFor[config.Tool](),
	"config.ToolNames":           reflect.TypeFor[config.ToolNames](),
	"config.ToolPartial":         reflect.TypeFor[config.ToolPartial](),
	"config.Tools":               reflect.TypeFor[config.Tools](),
	"config.ToolsPartial":        reflect.TypeFor[config.ToolsPartial](),
	"config.Types":               reflect.TypeFor[config.Types](),
	"partial.Any":                reflect.TypeFor[partial.Any](),
	"partial.Base":               reflect.TypeFor[partial.Base](),
	"partial.Format":             reflect.TypeFor[partial.Format](),
	"partial.List":               reflect.TypeFor[partial.List[string]](),
	"partial.Map":                reflect.TypeFor[partial.Map[partial.Value[int]]](),
	"partial.Nested":             reflect.TypeFor[partial.Nested[config.ParameterPartial]](),
	"partial.Path":               reflect.TypeFor[partial.Path](),
	"partial.State":              reflect.TypeFor[partial.State](),
	"partial.Value":              reflect.TypeFor[partial.Value[string]](),
	"diag.Error":                 reflect.TypeFor[diag.Error](),
	"diag.Errors":                reflect.TypeFor[diag.Errors](),
	"diag.Code":                  reflect.TypeFor[diag.Code](),
	"diag.Severity":              reflect.TypeFor[diag.Severity](),
	"diag.Collector":             reflect.TypeFor[diag.Collector](),
	"diag.Omitted":               reflect.TypeFor[diag.Omitted](),
	"load.App":                   reflect.TypeFor[load.App[config.Partial, config.Config]](),
	"codec.Document":             reflect.TypeFor[*codec.Document](),
	"codec.Extend":               reflect.TypeFor[codec.Extend](),
	"load.EnvPolicy":             reflect.TypeFor[load.EnvPolicy](),
	"load.Explanation":           reflect.TypeFor[load.Explanation](),
	"load.Kind":                  reflect.TypeFor[load.Kind](),
	"load.Layer":                 reflect.TypeFor[load.Layer[config.Partial]](),
	"codec.Limits":               reflect.TypeFor[codec.Limits](),
	"load.Probe":                 reflect.TypeFor[load.Probe](),
	"load.Result":                reflect.TypeFor[*load.Result[config.Partial, config.Config]](),
	"load.HostSource":            reflect.TypeFor[load.HostSource](),
	"load.Step":                  reflect.TypeFor[load.Step](),
	"load.Untrusted":             reflect.TypeFor[load.Untrusted](),
	"trust.Launch":               reflect.TypeFor[trust.Launch](),
	"trust.List":                 reflect.TypeFor[trust.List](),
	"trust.Pin":                  reflect.TypeFor[trust.Pin](),
	"trust.Store":                reflect.TypeFor[trust.Store](),
	"assign.Assignment":          reflect.TypeFor[assign.Assignment](),
	"assign.Op":                  reflect.TypeFor[assign.Op](),
	"resolve.Catalog":            reflect.TypeFor[resolve.Catalog](),
	"resolve.Definition":         reflect.TypeFor[resolve.Definition](),
	"resolve.Described":          reflect.TypeFor[resolve.Described](),
	"resolve.Discovered":         reflect.TypeFor[resolve.Discovered](),
	"resolve.Exec":               reflect.TypeFor[resolve.Exec](),
	"resolve.ExecKind":           reflect.TypeFor[resolve.ExecKind](),
	"resolve.Found":              reflect.TypeFor[resolve.Found](),
	"export.Dialect":             reflect.TypeFor[export.Dialect](),
	"call.Refusal":               reflect.TypeFor[call.Refusal](),
	"call.Problem":               reflect.TypeFor[call.Problem](),
	"call.Response":              reflect.TypeFor[call.Response](),
	"call.Decision":              reflect.TypeFor[call.Decision](),
	"call.Verdict":               reflect.TypeFor[call.Verdict](),
	"call.Reason":                reflect.TypeFor[call.Reason](),
	"call.Admission":             reflect.TypeFor[call.Admission](),
	"call.LockEntry":             reflect.TypeFor[call.LockEntry](),
	"call.TrustState":            reflect.TypeFor[call.TrustState](),
	"resolve.Policies":           reflect.TypeFor[*resolve.Policies](),
	"resolve.RuleList":           reflect.TypeFor[resolve.RuleList[config.RunMode]](),
	"resolve.PolicyRule":         reflect.TypeFor[resolve.PolicyRule[config.ResultMode]](),
	"resolve.Decided":            reflect.TypeFor[resolve.Decided[config.RunMode]](),
	"resolve.Skipped":            reflect.TypeFor[resolve.Skipped](),
	"call.Runner":                reflect.TypeFor[*call.Runner](),
	"serve.HTTP":                 reflect.TypeFor[serve.HTTP](),
	"serve.Server":               reflect.TypeFor[*serve.Server](),
	"serve.Snapshot":             reflect.TypeFor[serve.Snapshot](),
	"serve.StaleError":           reflect.TypeFor[serve.StaleError](),
	"protocol.Action":            reflect.TypeFor[protocol.Action](),
	"protocol.Context":           reflect.TypeFor[protocol.Context](),
	"protocol.Inquiry":           reflect.TypeFor[protocol.Inquiry](),
	"protocol.MCPContent":        reflect.TypeFor[protocol.MCPContent](),
	"protocol.MCPResult":         reflect.TypeFor[protocol.MCPResult](),
	"protocol.Outcome":           reflect.TypeFor[protocol.Outcome](),
	"protocol.OutcomeType":       reflect.TypeFor[protocol.OutcomeType](),
	"protocol.Task":              reflect.TypeFor[protocol.Task](),
	"protocol.ToolCall":          reflect.TypeFor[protocol.ToolCall](),
	"koanflayer.Provider":        reflect.TypeFor[*koanflayer.Provider](),
	"secret.String":              reflect.TypeFor[secret.String](),
	"config.Lock":                reflect.TypeFor[config.Lock](),
	"config.LockPartial":         reflect.TypeFor[config.LockPartial](),
	"config.LockPolicy":          reflect.TypeFor[config.LockPolicy](),
	"lock.Change":                reflect.TypeFor[lock.Change](),
	"lock.ChangeKind":            reflect.TypeFor[lock.ChangeKind](),
	"lock.Entry":                 reflect.TypeFor[lock.Entry](),
	"lock.Lockfile":              reflect.TypeFor[*lock.Lockfile](),
	"lock.SchemaChange":          reflect.TypeFor[lock.SchemaChange](),
	"lock.SchemaOp":              reflect.TypeFor[lock.SchemaOp](),
	"resolve.Origin":             reflect.TypeFor[resolve.Origin](),
	"resolve.Schema":             reflect.TypeFor[resolve.Schema](),
	"strata.LockState":           reflect.TypeFor[strata.LockState](),
	"strata.LockWrite":           reflect.TypeFor[strata.LockWrite](),
	"strata.ToolExplanation":     reflect.TypeFor[strata.ToolExplanation](),
	"strata.ToolLock":            reflect.TypeFor[strata.ToolLock](),
	"strata.LoginOptions":        reflect.TypeFor[strata.LoginOptions](),
	"strata.LoginResult":         reflect.TypeFor[strata.LoginResult](),
	"strata.SignInStatus":        reflect.TypeFor[strata.SignInStatus](),
	"config.OAuth":               reflect.TypeFor[config.OAuth](),
	"config.OAuthPartial":        reflect.TypeFor[config.OAuthPartial](),
}

// notValues are the exported types that are not values to compare:
// interfaces and functions (options).
var notValues = []string{
	"strata.Option", "partial.Defaulter", "partial.Enum", "codec.Schemer", "partial.Validator",
	"partial.ValueMarshaler", "partial.ValueUnmarshaler", "load.Rebaser", "load.Truster",
	"call.MCPCaller", "call.Option", "assign.Option", "koanflayer.Option",
	"config.Mode", "partial.Positioned", "partial.Shorthander", "codec.ShorthandSchemer",
}

// publicPackages are the directories of the packages a host imports.
var publicPackages = []string{".", "config", "partial", "codec", "diag", "load", "trust", "merge", "delta", "assign", "resolve", "export", "budget", "call", "serve", "protocol", "koanflayer", "lock", "secret", "policy"}

// TestEveryTypeListed finds every exported type of the public packages in
// their source, and checks it is in valueTypes or notValues.
func TestEveryTypeListed(t *testing.T) {
	var found []string
	fset := token.NewFileSet()
	for _, dir := range publicPackages {
		pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		for name, pkg := range pkgs {
			for _, f := range pkg.Files {
				for _, decl := range f.Decls {
					gd, ok := decl.(*ast.GenDecl)
					if !ok || gd.Tok != token.TYPE {
						continue
					}
					for _, spec := range gd.Specs {
						if ts := spec.(*ast.TypeSpec); ts.Name.IsExported() {
							found = append(found, name+"."+ts.Name.Name)
						}
					}
				}
			}
		}
	}
	sort.Strings(found)
	for _, name := range found {
		if _, ok := valueTypes[name]; !ok && !slices.Contains(notValues, name) {
			t.Errorf("%s is neither in valueTypes nor in notValues: add it, with a value go-cmp must compare", name)
		}
	}
	for name := range valueTypes {
		if !slices.Contains(found, name) {
			t.Errorf("valueTypes lists %s, which the packages no longer declare", name)
		}
	}
}

// TestEveryTypeDiffs fills a value of every exported value type (every
// exported field, all the way down) twice the same way and once another
// way, and compares them with cmp.Diff and no options: it must not panic,
// must find the same values equal, and must find the others different.
func TestEveryTypeDiffs(t *testing.T) {
	for name, typ := range valueTypes {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("cmp.Diff panics on %s: %v", name, r)
				}
			}()
			a, b, c := fill(typ, 1), fill(typ, 1), fill(typ, 2)
			if typ.Kind() == reflect.Pointer && handles[typ] {
				// A handle (a workspace, a runner, a server) is equal to
				// itself only.
				if d := cmp.Diff(a, a); d != "" {
					t.Errorf("a handle differs from itself:\n%s", d)
				}
				if cmp.Diff(a, b) == "" {
					t.Errorf("two handles compare equal")
				}
				return
			}
			if d := cmp.Diff(a, b); d != "" {
				t.Errorf("two values filled the same way differ (-a +b):\n%s", d)
			}
			if cmp.Diff(a, c) == "" && !reflect.DeepEqual(a, c) {
				t.Errorf("two different values compare equal:\n%#v\n%#v", a, c)
			}
		})
	}
}

// handles are the types that are compared by identity.
var handles = map[reflect.Type]bool{
	reflect.TypeFor[*strata.Workspace[config.Partial, config.Config]](): true,
	reflect.TypeFor[*call.Runner]():                                     true,
	reflect.TypeFor[*serve.Server]():                                    true,
	reflect.TypeFor[*budget.Counts]():                                   true,
}

// fill returns a value of typ with every exported field set, from seed;
// values of types with unexported fields come from their constructors.
func fill(typ reflect.Type, seed int) any {
	switch typ {
	case reflect.TypeFor[*strata.Workspace[config.Partial, config.Config]]():
		dir, _ := os.MkdirTemp("", "types")
		defer os.RemoveAll(dir)
		w, err := strata.Open[config.Partial](context.Background(), config.Default(), strata.Dir(dir), strata.Environ([]string{}))
		if err != nil {
			panic(err)
		}
		return w
	case reflect.TypeFor[*codec.Document]():
		d, err := codec.Parse(fmt.Sprintf("l%d.toml", seed), []byte(fmt.Sprintf("[tools.t%d]\nrun = \"ask\"\n", seed)), partial.TOML)
		if err != nil {
			panic(err)
		}
		return d
	case reflect.TypeFor[*load.Result[config.Partial, config.Config]]():
		dir := filepath.Join(os.TempDir(), "strata-types-test")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			panic(err)
		}
		a := load.App[config.Partial, config.Config]{Name: "strata", Defaults: config.Default(), Dir: dir, Environ: []string{}, Cfg: []string{fmt.Sprintf("tools.t%d.run=ask", seed)}}
		r, err := a.Load(context.Background())
		if err != nil {
			panic(err)
		}
		return r
	case reflect.TypeFor[*koanflayer.Provider]():
		return koanflayer.Of(map[string]any{"seed": seed})
	case reflect.TypeFor[secret.String]():
		return secret.From(fmt.Sprint(seed), "${env:T}")
	case reflect.TypeFor[serve.Snapshot]():
		// The same runner: a runner is a handle.
		return serve.Snapshot{Runner: runnerFor(seed), Watch: []string{fmt.Sprint(seed)}}
	case reflect.TypeFor[resolve.Schema]():
		return resolve.MustSchema(fmt.Sprintf(`{"type":"object","title":"s%d"}`, seed))
	case reflect.TypeFor[diag.Collector]():
		var c diag.Collector
		c.Add(&diag.Error{Msg: fmt.Sprint(seed)})
		return c
	}
	v := reflect.New(typ).Elem()
	fillValue(v, seed, 0)
	return v.Interface()
}

var runners = map[int]*call.Runner{}

// runnerFor returns one runner per seed.
func runnerFor(seed int) *call.Runner {
	if runners[seed] == nil {
		runners[seed] = &call.Runner{Environ: []string{fmt.Sprint(seed)}}
	}
	return runners[seed]
}

func fillValue(v reflect.Value, seed, depth int) {
	if depth > 4 {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(seed == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(seed))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(seed))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(seed) + 0.5)
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", seed))
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fillValue(s.Index(0), seed, depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fillValue(k, seed, depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fillValue(e, seed, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillValue(p.Elem(), seed, depth+1)
		v.Set(p)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[resolve.Schema]() || v.Type() == reflect.TypeFor[secret.String]() {
			v.Set(reflect.ValueOf(fill(v.Type(), seed)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillValue(v.Field(i), seed, depth+1)
			}
		}
	case reflect.Interface:
		if v.NumMethod() == 0 {
			v.Set(reflect.ValueOf(fmt.Sprintf("any%d", seed)))
		}
	}
}

// TestDecodedEqualsConstructed: a layer decoded from a file and the same
// layer written in Go compare equal with cmp.Diff and no options.
func TestDecodedEqualsConstructed(t *testing.T) {
	var decoded config.Partial
	if err := codec.Decode("l.toml", []byte(`
[tools]
[tools.grep]
run = "ask"
options.max = 10
options.flags = ["-i", 2]
options.nested = { a = 1.5 }
`), partial.TOML, &decoded); err != nil {
		t.Fatal(err)
	}
	var built config.Partial
	built.Tools.Set("grep", config.ToolPartial{
		Run: partial.Replace(config.RunRule{Mode: config.RunAsk}),
		Options: partial.Map[partial.Any]{Entries: map[string]*partial.Any{
			"max":    ptr(partial.AnyOf(10)),
			"flags":  ptr(partial.AnyOf([]any{"-i", 2})),
			"nested": ptr(partial.AnyOf(map[string]any{"a": 1.5})),
		}},
	})
	if d := cmp.Diff(built, decoded); d != "" {
		t.Errorf("(-built +decoded):\n%s", d)
	}
	var empty, emptyTable config.Partial
	if err := codec.Decode("e.toml", []byte("[tools]\n"), partial.TOML, &emptyTable); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(empty, emptyTable); d != "" {
		t.Errorf("an empty [tools] table (-nothing +table):\n%s", d)
	}
}

func ptr[T any](v T) *T { return &v }
