package secrets

import (
	"regexp"
	"sync"
)

// lazyRegexp is a rule's regular expression compiled when it is first
// used: building the programs was four fifths of Compile (about 70 ms of
// one core for the defaults), which a refresh that reads a few files paid
// whole before reading the first, though those files reach few rules
// (the keyword DFA, the gates and the anchors decide which, without a
// program). Compile validates each expression first (rules.SecretRule.Check
// parses it as regexp.Compile does, and compiling a parsed expression
// cannot fail), so the compile here never fails and the matches are those
// of an expression compiled up front. Safe for concurrent use.
type lazyRegexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func newLazyRegexp(expr string) *lazyRegexp { return &lazyRegexp{expr: expr} }

// get returns the compiled expression, compiling it on the first call.
func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() {
		l.re = regexp.MustCompile(l.expr) // validated by Compile: cannot fail
	})
	return l.re
}

func (l *lazyRegexp) Match(b []byte) bool       { return l.get().Match(b) }
func (l *lazyRegexp) MatchString(s string) bool { return l.get().MatchString(s) }
func (l *lazyRegexp) FindIndex(b []byte) []int  { return l.get().FindIndex(b) }
func (l *lazyRegexp) String() string            { return l.expr }
func (l *lazyRegexp) FindAllIndex(b []byte, n int) [][]int {
	return l.get().FindAllIndex(b, n)
}
func (l *lazyRegexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return l.get().FindAllSubmatchIndex(b, n)
}

// compileAll builds every program of the compiled rules now, as Compile
// did before the programs were built on first use: for tests that compare
// the two.
func (c *compiled) compileAll() {
	for i := range c.rules {
		r := &c.rules[i]
		for _, l := range r.lazies() {
			l.get()
		}
	}
}

// lazies lists a rule's expressions.
func (r *rule) lazies() []*lazyRegexp {
	out := []*lazyRegexp{r.re}
	for _, l := range []*lazyRegexp{r.end, r.decoded, r.key} {
		if l != nil {
			out = append(out, l)
		}
	}
	out = append(out, r.allowRes...)
	out = append(out, r.allowPaths...)
	return append(out, r.allowKeys...)
}
