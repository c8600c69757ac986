package command

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// site is where a reference sits in a command, as far as its value is
// concerned.
type site struct {
	q       quoting // the quoting around it, in shell text
	start   bool    // nothing literal comes before it in its word: its value may start the word
	prev    []int   // the references before it in its word, whose values may be empty
	after   bool    // a literal -- argument comes before its word in its command
	command bool    // its word is the name of a command
	code    string  // the builtin (eval, exec, ...) whose argument it is, which runs it as code or a command
}

// runsCode reports whether argument i of a command is run as shell code
// or names the command run: any argument of eval, . (source) and trap,
// the first operand of exec, command and builtin (the words after it
// are that command's arguments).
func runsCode(args []*syntax.Word, i int) bool {
	switch args[0].Lit() {
	case "eval", ".", "source", "trap":
		return true
	case "exec", "command", "builtin":
		for j := 1; j < i; j++ {
			if lit := args[j].Lit(); !strings.HasPrefix(lit, "-") {
				return false // the command is an earlier word
			}
		}
		return true
	}
	return false
}

// shellSites finds where each reference of shell text sits (refs are
// their indexes in line, as the ref pattern finds them), or why one of
// them sits where no quoting keeps a value literal.
//
// The text is parsed twice, as POSIX sh (dash, ash) and as bash (/bin/sh
// on macOS, and bash's own extensions: $'…', process substitutions),
// with each reference replaced by a word that lexes like plain text.
// Each reference must be a plain part of a word of a simple command, an
// assignment, a redirection, a case or a for loop: unquoted, directly
// inside "…", or inside '…'. Anywhere else (a comment, a here-document,
// a command substitution, an arithmetic or parameter expansion, $'…')
// it is refused, and so is a reference the two readings place
// differently.
func shellSites(line string, refs [][]int) ([]site, error) {
	sub := substitute(line, refs, "%strata", "%")
	name := func(i int) string { return line[refs[i][0]:refs[i][1]] }
	var out []site
	for _, lang := range []syntax.LangVariant{syntax.LangPOSIX, syntax.LangBash} {
		f, err := parse(sub.text, lang)
		if err != nil {
			// With words for sentinels, which read as names in arithmetic
			// and delimiters, the text may parse and show why.
			if alt := substitute(line, refs, "STRATA", "_"); alt.text != sub.text {
				if f, aerr := parse(alt.text, lang); aerr == nil {
					if _, r := alt.sites(f); r != nil {
						return nil, r.explain(name(r.ref), line, refs[r.ref][0])
					}
				}
			}
			return nil, sub.parseError(err, lang)
		}
		sites, r := sub.sites(f)
		if r != nil {
			return nil, r.explain(name(r.ref), line, refs[r.ref][0])
		}
		if out == nil {
			out = sites
			continue
		}
		for i, b := range sites {
			a := &out[i]
			if a.q != b.q || a.command != b.command || a.code != b.code {
				return nil, &Error{Msg: name(i) + " is quoted differently by sh and by bash" + lineOf(line, refs[i][0]), Hint: hintArgs}
			}
			a.start = a.start || b.start
			a.after = a.after && b.after
			a.prev = union(a.prev, b.prev)
		}
	}
	return out, nil
}

func parse(text string, lang syntax.LangVariant) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true)).Parse(strings.NewReader(text), "")
}

// subst is shell text whose references are replaced by sentinels:
// tag, the reference's index, end.
type subst struct {
	line     string
	refs     [][]int
	tag, end string
	text     string
	starts   []int // where each sentinel starts in text
}

// substitute replaces the references refs of line by sentinels that start
// with tag (made longer until line does not hold it) and end with end.
func substitute(line string, refs [][]int, tag, end string) *subst {
	for strings.Contains(line, tag) {
		tag += "_"
	}
	s := &subst{line: line, refs: refs, tag: tag, end: end, starts: make([]int, len(refs))}
	var b strings.Builder
	last := 0
	for i, loc := range refs {
		b.WriteString(line[last:loc[0]])
		s.starts[i] = b.Len()
		b.WriteString(s.sentinel(i))
		last = loc[1]
	}
	b.WriteString(line[last:])
	s.text = b.String()
	return s
}

func (s *subst) sentinel(i int) string { return s.tag + strconv.Itoa(i) + s.end }

// orig maps an offset of the text back to the line.
func (s *subst) orig(off int) int {
	for i := len(s.refs) - 1; i >= 0; i-- {
		switch end := s.starts[i] + len(s.sentinel(i)); {
		case off >= end:
			return off - end + s.refs[i][1]
		case off >= s.starts[i]:
			return s.refs[i][0]
		}
	}
	return off
}

// sites places every reference in the parsed text f, or refuses one.
func (s *subst) sites(f *syntax.File) ([]site, *refusal) {
	sc := &scan{subst: s, sites: make([]site, len(s.refs)), found: make([]int, len(s.refs))}
	syntax.Walk(f, sc.visit)
	if sc.err != nil {
		return nil, sc.err
	}
	for i, n := range sc.found {
		if n != 1 {
			return nil, &refusal{ref: i, msg: "is where strata cannot tell how the shell reads it"}
		}
	}
	return sc.sites, nil
}

const hintArgs = "pass values as plain arguments of a command (bare, in \"…\" or in '…'), or use shell = false"

// refusal is a reference in a place no quoting keeps literal.
type refusal struct {
	ref       int
	msg, hint string
}

func (r *refusal) explain(name, line string, at int) *Error {
	hint := r.hint
	if hint == "" {
		hint = hintArgs
	}
	return &Error{Msg: name + " " + r.msg + lineOf(line, at), Hint: strings.ReplaceAll(hint, "{{…}}", name)}
}

// lineOf says which line of a shell text of several lines offset at is
// on, and nothing for one line.
func lineOf(line string, at int) string {
	if !strings.Contains(line, "\n") {
		return ""
	}
	return fmt.Sprintf(" (line %d of the shell text)", 1+strings.Count(line[:at], "\n"))
}

// parseError says where shell text does not parse, in the line as
// written.
func (s *subst) parseError(err error, lang syntax.LangVariant) error {
	who := "sh"
	if lang == syntax.LangBash {
		who = "bash"
	}
	var pe syntax.ParseError
	var le syntax.LangError
	var pos syntax.Pos
	var msg string
	switch {
	case errors.As(err, &pe):
		pos, msg = pe.Pos, pe.Text
	case errors.As(err, &le):
		pos, msg = le.Pos, le.Feature+" is not "+who
	default:
		return &Error{Msg: "the shell text does not parse: " + s.names(err.Error()), Hint: "fix its syntax"}
	}
	at := min(s.orig(int(pos.Offset())), len(s.line))
	l := 1 + strings.Count(s.line[:at], "\n")
	col := at - strings.LastIndexByte(s.line[:at], '\n')
	return &Error{Msg: fmt.Sprintf("the shell text does not parse as %s: line %d, column %d: %s", who, l, col, s.names(msg)),
		Hint: "fix its syntax: a shell template runs with /bin/sh, which is bash on some systems and dash or ash on others"}
}

// names puts the references back in place of their sentinels in text.
func (s *subst) names(text string) string {
	for i := len(s.refs) - 1; i >= 0; i-- {
		text = strings.ReplaceAll(text, s.sentinel(i), s.line[s.refs[i][0]:s.refs[i][1]])
	}
	return text
}

// scan walks a parsed shell text and places the sentinels it finds.
type scan struct {
	*subst
	stack []syntax.Node
	sites []site
	found []int
	err   *refusal
}

func (s *scan) visit(n syntax.Node) bool {
	if n == nil {
		s.stack = s.stack[:len(s.stack)-1]
		return true
	}
	var text string
	switch n := n.(type) {
	case *syntax.Lit:
		text = n.Value
	case *syntax.SglQuoted:
		text = n.Value
	case *syntax.Comment:
		text = n.Text
	}
	for _, at := range s.sentinels(text) {
		s.found[at.ref]++
		if s.err != nil {
			continue
		}
		st, r := s.place(n, text, at)
		if r != nil {
			s.err = r
			continue
		}
		s.sites[at.ref] = st
	}
	s.stack = append(s.stack, n)
	return true
}

// sentinel is a reference found in a node's text, at offset off.
type sentinel struct{ ref, off int }

// sentinels finds the references in the text of a node.
func (s *scan) sentinels(text string) []sentinel {
	var out []sentinel
	for off := 0; ; {
		i := strings.Index(text[off:], s.tag)
		if i < 0 {
			return out
		}
		i += off
		j := i + len(s.tag)
		k := j
		for k < len(text) && text[k] >= '0' && text[k] <= '9' {
			k++
		}
		n, err := strconv.Atoi(text[j:k])
		if err == nil && strings.HasPrefix(text[k:], s.end) && n < len(s.refs) {
			out = append(out, sentinel{ref: n, off: i})
			off = k + len(s.end)
		} else {
			off = j
		}
	}
}

// place decides where the reference at, in the text of node n, sits.
func (s *scan) place(n syntax.Node, text string, at sentinel) (site, *refusal) {
	refuse := func(msg, hint string) (site, *refusal) {
		return site{}, &refusal{ref: at.ref, msg: msg, hint: hint}
	}
	if _, ok := n.(*syntax.Comment); ok {
		return refuse("is in a comment, which a newline in the value would end", "move it out of the comment")
	}
	// The nearest construct around it that changes how text is read.
	child := n
	for i := len(s.stack) - 1; i >= 0; i-- {
		switch p := s.stack[i].(type) {
		case *syntax.CmdSubst:
			return refuse("is in a command substitution ($(…) or `…`), where strata cannot quote a value", hintArgs)
		case *syntax.ProcSubst:
			return refuse("is in a process substitution", hintArgs)
		case *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.LetClause, *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm:
			return refuse("is in an arithmetic expression, which evaluates a value as code", "pass it as an argument to a program that checks it, or use shell = false")
		case *syntax.ParamExp:
			return refuse("is in a parameter expansion ${…}, where quoting differs between shells", "assign it to a variable first (v="+"{{…}}) and expand that")
		case *syntax.Redirect:
			if p.Hdoc != nil && child == syntax.Node(p.Hdoc) {
				return refuse("is in the body of a here-document, where a line of the value could end the document and $ or ` in it would run",
					"pass the value as an argument instead, as in printf '%s\\n' {{…}} | cat")
			}
			if (p.Op == syntax.Hdoc || p.Op == syntax.DashHdoc) && child == syntax.Node(p.Word) {
				return refuse("is the delimiter of a here-document", "write a fixed delimiter")
			}
		case *syntax.ExtGlob, *syntax.TestClause, *syntax.TestDecl, *syntax.BraceExp, *syntax.ArrayExpr:
			return refuse("is where strata cannot quote a value", hintArgs)
		}
		child = s.stack[i]
	}

	// Its part of a word, and the word.
	depth := len(s.stack)
	parent := func(up int) syntax.Node {
		if depth-up < 0 {
			return nil
		}
		return s.stack[depth-up]
	}
	var st site
	var word *syntax.Word
	var part syntax.WordPart // the part of word that holds it
	switch n := n.(type) {
	case *syntax.Lit:
		var raw string // the shell text right before it
		switch p := parent(1).(type) {
		case *syntax.Word:
			st.q, word, part = bare, p, n
			raw = litsBefore(p.Parts, n) + text[:at.off]
		case *syntax.DblQuoted:
			w, ok := parent(2).(*syntax.Word)
			if !ok {
				return refuse("is where strata cannot quote a value", hintArgs)
			}
			st.q, word, part = double, w, p
			raw = litsBefore(p.Parts, n) + text[:at.off]
		default:
			return refuse("is where strata cannot quote a value", hintArgs)
		}
		if bs := trailing(raw, '\\'); bs%2 == 1 {
			return refuse("follows a backslash, which would escape the quote strata puts around the value", "remove the backslash, or quote the text before it")
		}
		if dollar(raw) {
			return refuse("follows a $, which would make the value part of an expansion", "put the value apart from the $, or use shell = false")
		}
	case *syntax.SglQuoted:
		w, ok := parent(1).(*syntax.Word)
		if !ok {
			return refuse("is where strata cannot quote a value", hintArgs)
		}
		st.q, word, part = single, w, n
	default:
		return refuse("is where strata cannot quote a value", hintArgs)
	}
	switch q := part.(type) {
	case *syntax.SglQuoted:
		if q.Dollar || dollarBefore(word, q) {
			return refuse("is in $'…' quoting, which bash reads with escapes of its own", "quote it with '…' or \"…\"")
		}
	case *syntax.DblQuoted:
		if q.Dollar || dollarBefore(word, q) {
			return refuse("is in $\"…\" quoting, which bash translates", "quote it with \"…\"")
		}
	}

	// What the word is.
	switch p := parent(wordDepth(st.q)).(type) {
	case *syntax.CallExpr:
		for i, a := range p.Args {
			if a == word {
				st.command = i == 0
				if i > 0 && runsCode(p.Args, i) {
					st.code = p.Args[0].Lit()
				}
				break
			}
			if i > 0 && a.Lit() == "--" {
				st.after = true
			}
		}
	case *syntax.Assign:
		if p.Value != word {
			return refuse("is where strata cannot quote a value", hintArgs)
		}
	case *syntax.Redirect:
		// A target (> {{…}}); here-documents were refused above.
	case *syntax.CaseClause, *syntax.CaseItem, *syntax.WordIter:
	default:
		return refuse("is where strata cannot quote a value", hintArgs)
	}

	// What comes before it in its word.
	st.start = true
	for _, wp := range word.Parts {
		if wp == part {
			before := ""
			switch q := part.(type) {
			case *syntax.Lit:
				before = text[:at.off]
			case *syntax.SglQuoted:
				before = text[:at.off]
			case *syntax.DblQuoted:
				for _, dp := range q.Parts {
					if dp == n {
						before = text[:at.off]
						break
					}
					if s.literal(dp) {
						st.start = false
					}
					st.prev = append(st.prev, s.refsIn(dp)...)
				}
			}
			if s.literal(&syntax.Lit{Value: before}) {
				st.start = false
			}
			for _, b := range s.sentinels(before) {
				st.prev = append(st.prev, b.ref)
			}
			break
		}
		if s.literal(wp) {
			st.start = false
		}
		st.prev = append(st.prev, s.refsIn(wp)...)
	}
	return st, nil
}

// wordDepth is how far above the node holding a reference its word's
// parent is: Lit or '…' in a word (2), Lit in "…" in a word (3).
func wordDepth(q quoting) int {
	if q == double {
		return 3
	}
	return 2
}

// literal reports whether a part of a word gives text of its own, which
// an expansion (possibly empty) or a reference does not.
func (s *scan) literal(wp syntax.Node) bool {
	var text string
	switch p := wp.(type) {
	case *syntax.Lit:
		// Braces and commas may be bash's brace expansion, which {,}
		// turns into nothing.
		text = strings.NewReplacer("\\\n", "", "{", "", "}", "", ",", "").Replace(p.Value)
	case *syntax.SglQuoted:
		text = p.Value
	case *syntax.DblQuoted:
		for _, dp := range p.Parts {
			if s.literal(dp) {
				return true
			}
		}
		return false
	default:
		return false
	}
	for _, at := range s.sentinels(text) {
		text = strings.Replace(text, s.sentinel(at.ref), "", 1)
	}
	return text != ""
}

// refsIn lists the references inside a part of a word.
func (s *scan) refsIn(wp syntax.Node) []int {
	var out []int
	syntax.Walk(wp, func(n syntax.Node) bool {
		var text string
		switch n := n.(type) {
		case *syntax.Lit:
			text = n.Value
		case *syntax.SglQuoted:
			text = n.Value
		}
		for _, at := range s.sentinels(text) {
			out = append(out, at.ref)
		}
		return true
	})
	return out
}

// dollarBefore reports whether the part q of word follows an unescaped $
// ($'…' or $"…" in bash, whatever the POSIX reading says).
func dollarBefore(word *syntax.Word, q syntax.WordPart) bool {
	return dollar(litsBefore(word.Parts, q))
}

// litsBefore is the text of the literal parts right before the part x of
// parts: the parser may split one run of text into several.
func litsBefore(parts []syntax.WordPart, x syntax.Node) string {
	for i, p := range parts {
		if syntax.Node(p) != x {
			continue
		}
		text := ""
		for j := i - 1; j >= 0; j-- {
			lit, ok := parts[j].(*syntax.Lit)
			if !ok {
				break
			}
			text = lit.Value + text
		}
		return text
	}
	return ""
}

// dollar reports whether raw shell text ends with an unescaped $.
func dollar(s string) bool {
	return strings.HasSuffix(s, "$") && trailing(s[:len(s)-1], '\\')%2 == 0
}

// trailing counts the bytes c that end s.
func trailing(s string, c byte) int {
	n := 0
	for n < len(s) && s[len(s)-1-n] == c {
		n++
	}
	return n
}

// union adds to a the indexes of b it lacks.
func union(a, b []int) []int {
	for _, x := range b {
		found := false
		for _, y := range a {
			if x == y {
				found = true
				break
			}
		}
		if !found {
			a = append(a, x)
		}
	}
	return a
}
