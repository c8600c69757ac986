package diag

import (
	"fmt"
	"strconv"

	"github.com/strata-config/strata/internal/limits"
)

// Omitted is the cause of the problem that closes a list of problems cut
// short at a limit (see [Collector]): N more problems were found and left
// out.
type Omitted struct{ N int }

func (o *Omitted) Error() string { return Counted(o.N, "more problem") }

// omitted returns how many problems e stands for when it closes a list
// cut short, or 0.
func omitted(e *Error) int {
	if e == nil {
		return 0
	}
	if o, ok := e.Err.(*Omitted); ok {
		return o.N
	}
	return 0
}

// omission returns the problem that closes a list cut short, n problems
// left out.
func omission(n int) *Error {
	o := &Omitted{N: n}
	return &Error{Code: CodeOmitted, Msg: "… and " + o.Error(), Err: o}
}

// Count writes n with a comma between thousands: 1,234.
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Counted writes n as [Count] does, then noun, with an s past one: "1
// tool", "0 tools", "1,234 more problems".
func Counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Count(n) + " " + noun + "s"
}

// Collector gathers the problems of one pass. It keeps the first Max of
// them and counts the others, so that a flood of problems (a file of
// 200,000 duplicate keys) costs neither memory nor a screen of output:
// [Collector.Err] ends the list with a problem that says how many more
// there were ("… and 1,234 more problems"). The zero Collector is ready
// to use.
type Collector struct {
	// Max is how many problems to keep; 0 or less means 100 (the default
	// of codec.Limits.Problems).
	Max int

	errs    Errors
	omitted int
}

// Equal reports whether c and o hold the same problems, have left out as
// many, and keep as many. It lets go-cmp compare collectors.
func (c Collector) Equal(o Collector) bool {
	return c.Max == o.Max && c.omitted == o.omitted &&
		len(c.errs) == len(o.errs) && c.errs.Error() == o.errs.Error() && fmt.Sprint(c.errs) == fmt.Sprint(o.errs)
}

// Add adds the problems in err (see [All]); nil adds nothing. The
// problems a list cut short already left out are counted with the
// others.
func (c *Collector) Add(err error) {
	if err == nil {
		return
	}
	for _, e := range All(err) {
		c.AddError(e)
	}
}

// AddError adds one problem.
func (c *Collector) AddError(e *Error) {
	max := c.Max
	if max <= 0 {
		max = limits.Problems
	}
	switch n := omitted(e); {
	case n > 0:
		c.omitted += n
	case len(c.errs) < max:
		c.errs = append(c.errs, e)
	default:
		c.omitted++
	}
}

// Omit counts n problems that were found and left out, as a pass that
// stops keeping them at a limit does.
func (c *Collector) Omit(n int) {
	if n > 0 {
		c.omitted += n
	}
}

// Len returns how many problems were added, those left out included.
func (c *Collector) Len() int { return len(c.errs) + c.omitted }

// Err returns the problems as [Errors], the ones left out counted by a
// last problem whose cause is an [*Omitted] (and whose Source is the one
// all the others share, if they do); nil when there are none.
func (c *Collector) Err() error {
	if c.Len() == 0 {
		return nil
	}
	out := make(Errors, len(c.errs), len(c.errs)+1)
	copy(out, c.errs)
	if c.omitted > 0 {
		// The last problem names the source all the others share.
		e := omission(c.omitted)
		if len(out) > 0 {
			e.Source = out[0].Source
		}
		for _, o := range out {
			if o.Source != e.Source {
				e.Source = ""
			}
		}
		out = append(out, e)
	}
	return out
}
