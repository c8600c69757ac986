package cli

import (
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/google/go-cmp/cmp"
)

// parsed is what kong makes of a command line: the command it selects,
// its error, and the values of the command's fields.
type parsed struct {
	Command string
	Err     string
	Fields  any
}

func parse(t *testing.T, grammar any, field string, args []string) parsed {
	t.Helper()
	k, err := kong.New(grammar, kong.Name("strata"), kong.Exit(func(int) { t.Fatalf("%q: kong exits", args) }))
	if err != nil {
		t.Fatal(err)
	}
	var p parsed
	kctx, err := k.Parse(args)
	if err != nil {
		p.Err = err.Error()
	} else {
		p.Command = kctx.Command()
	}
	p.Fields = reflect.ValueOf(grammar).Elem().FieldByName(field).Interface()
	return p
}

// TestGrammarOfOneCommand checks that a command line parsed with the model
// of its command alone, as run does, gives what the whole model gives:
// the same command, values and errors, for every flag of every command.
func TestGrammarOfOneCommand(t *testing.T) {
	whole, err := kong.New(&cli{}, kong.Name("strata"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range whole.Model.Children {
		field := ""
		typ := reflect.TypeFor[cli]()
		for i := range typ.NumField() {
			if name := typ.Field(i).Name; strings.ToLower(name) == cmd.Name {
				field = name
			}
		}
		cases := [][]string{{cmd.Name}, {cmd.Name, "--bogus"}, {cmd.Name, "a", "b", "c"}, {cmd.Name, "--", "-a"}}
		for _, f := range cmd.Flags {
			if f.Name == "help" {
				continue
			}
			cases = append(cases, []string{cmd.Name, "--" + f.Name})
			if !f.IsBool() {
				cases = append(cases, []string{cmd.Name, "--" + f.Name + "=1"}, []string{cmd.Name, "a", "--" + f.Name, "x=y"})
			}
		}
		for _, args := range cases {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				one := grammar(args)
				if _, ok := one.(*cli); ok {
					t.Fatalf("grammar(%q) is the whole model", args)
				}
				want := parse(t, &cli{}, field, args)
				got := parse(t, one, field, args)
				if diff := cmp.Diff(want, got, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
					t.Errorf("%q (-whole +one command):\n%s", args, diff)
				}
			})
		}
	}
}

// TestGrammarWhole checks the command lines that get the whole model.
func TestGrammarWhole(t *testing.T) {
	for _, args := range [][]string{nil, {"--help"}, {"config", "--help"}, {"merge", "a", "-h"}, {"confg"}, {"-x", "config"}} {
		if _, ok := grammar(args).(*cli); !ok {
			t.Errorf("grammar(%q) is not the whole model", args)
		}
	}
}
