package secrets

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/repoprep/repoprep/rules"
)

// The cross-file pass. A rule catches a secret where its context gives it away
// (password = "..."); the same value elsewhere (a Bearer header in a test, a TOTP seed in
// a fixture, a key body in a JSON string, a password on a docker command line in a
// README) has no such context. So every value caught anywhere goes into a Values set,
// and a second pass walks every staged file looking for those exact values (an index of
// one 8-byte anchor per value, values_index.go) and masks each occurrence.

const (
	// minValueBytes is the shortest value the cross-file pass looks for: shorter ones
	// ("1234", "hunter2") occur everywhere by chance and are masked only where caught.
	// It is also the anchor every value is indexed by (anchorBytes).
	minValueBytes = 8
	// shortValueBytes: values shorter than this must stand alone (no letter or digit
	// right before or after), so the address 10.0.0.1 does not mask part of 10.0.0.12.
	shortValueBytes = 20
	// minLineValueBytes is the shortest line of a multi-line secret (a key body) that the
	// pass looks for on its own.
	minLineValueBytes = 32
	// maxValueBytes: a longer single-line value is looked for in pieces of this size.
	maxValueBytes = 1024
)

// Values is the set of secret values caught in one run, for the cross-file pass. It holds
// raw secrets: it never leaves the process, and its String method prints only a count.
// Safe for concurrent use.
type Values struct {
	mu    sync.Mutex
	rules map[string]int32 // value -> the rule that caught it first, an index in ids
	ids   []string         // rule ids
}

// NewValues returns an empty set.
func NewValues() *Values { return &Values{rules: map[string]int32{}} }

// String says how many values the set holds, never what they are.
func (v *Values) String() string { return fmt.Sprintf("secrets.Values(%d)", v.Len()) }

// Len is the number of distinct values.
func (v *Values) Len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.rules)
}

// Add puts value, caught by rule ruleID, into the set, split as the pass looks for it
// (lines of a block, pieces of a very long value); a value under minValueBytes, or a
// word that is never a secret (rules.NotSecret), is left out.
func (v *Values) Add(ruleID string, value []byte) {
	v.add(ruleID, appendValues(nil, value))
}

// add puts values, already split by appendValues, into the set. Whatever their shape: a
// caught password that reads like a word (welcome1, Summer2024, MyPassw0rd) is still a
// password in a README's docker command line. Left out are the stop list's words
// (password, changeme, localhost) and plain lower-case words (plainWord), since one rule
// catching one as a value would mask it all over the tree: on CredData's repositories a
// single "connection" caught as a password became 165 masked lines.
func (v *Values) add(ruleID string, values [][]byte) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if n := len(values); n > 1024 && n > len(v.rules) {
		// A key block's lines come in at once: make room for them in one step, not by
		// the map's doublings.
		grown := make(map[string]int32, len(v.rules)+n)
		for k, id := range v.rules {
			grown[k] = id
		}
		v.rules = grown
	}
	// The new values are copied into one string: one allocation for a key block's
	// 62,500 lines, not one each.
	fresh := make([][]byte, 0, len(values))
	size := 0
	for _, val := range values {
		if len(val) < minValueBytes || rules.NotSecret(val) || plainWord(val) {
			continue
		}
		if _, ok := v.rules[string(val)]; !ok {
			fresh = append(fresh, val)
			size += len(val)
		}
	}
	var b strings.Builder
	b.Grow(size)
	for _, val := range fresh {
		b.Write(val)
	}
	arena := b.String()
	id := int32(slices.Index(v.ids, ruleID))
	if id < 0 && len(fresh) > 0 {
		id = int32(len(v.ids))
		v.ids = append(v.ids, ruleID)
	}
	for _, val := range fresh {
		k := arena[:len(val)]
		arena = arena[len(val):]
		if _, ok := v.rules[k]; !ok { // values may repeat within one call
			v.rules[k] = id
		}
	}
}

// appendValues appends to vs what the cross-file pass should look for to find value: the
// value itself, or for a multi-line value (a key block, also with JSON-escaped \n) each
// line of at least minLineValueBytes, and for a very long line its pieces (the last one
// ending where the line ends, so every byte of a copy is covered). They are copies, in
// one allocation: a 4 MB key block is 62,500 lines.
func appendValues(vs [][]byte, value []byte) [][]byte {
	value = bytes.TrimSpace(value)
	if len(value) < minValueBytes {
		return vs
	}
	multi := bytes.IndexByte(value, '\n') >= 0 || bytes.Contains(value, []byte(`\n`))
	if !multi && len(value) <= maxValueBytes {
		return append(vs, bytes.Clone(value))
	}
	var pieces [][2]int // offsets in value
	total := 0
	piece := func(from, to int) {
		pieces = append(pieces, [2]int{from, to})
		total += to - from
	}
	line := func(from, to int) {
		for from < to && isSpace(value[from]) {
			from++
		}
		for to > from && isSpace(value[to-1]) {
			to--
		}
		if to-from < minLineValueBytes {
			return
		}
		start := from
		for ; to-from > maxValueBytes; from += maxValueBytes {
			piece(from, from+maxValueBytes)
		}
		piece(max(start, to-maxValueBytes), to) // the last piece ends with the line
	}
	if !multi {
		line(0, len(value))
	} else {
		from := 0
		for i := 0; i < len(value); i++ {
			if !lineCut[value[i]] {
				continue
			}
			if value[i] != '\\' {
				line(from, i)
				from = i + 1
			} else if i+1 < len(value) && (value[i+1] == 'n' || value[i+1] == 'r') {
				line(from, i)
				from = i + 2
				i++
			}
		}
		line(from, len(value))
	}
	arena := make([]byte, 0, total)
	vs = slices.Grow(vs, len(pieces))
	for _, p := range pieces {
		arena = append(arena, value[p[0]:p[1]]...)
		vs = append(vs, arena[len(arena)-(p[1]-p[0]):len(arena):len(arena)])
	}
	return vs
}

// lineCut marks the bytes that end a line of a multi-line value: newlines, quotes,
// commas, and the backslash of a \n or \r escape.
var lineCut = [256]bool{'\n': true, '\r': true, '"': true, '\'': true, ',': true, '\\': true}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// plainWord reports whether v is made of ASCII letters of one case, with at most
// '-', '_' or '.' between them: application, spring-boot-demo, flags.stopped, and the
// names of settings, AWS_SECRET_ACCESS_KEY. Such a value is masked where a rule caught
// it, never looked for elsewhere.
func plainWord(v []byte) bool {
	lower, upper := true, true
	for _, c := range v {
		sep := c == '-' || c == '_' || c == '.'
		lower = lower && ('a' <= c && c <= 'z' || sep)
		upper = upper && ('A' <= c && c <= 'Z' || sep)
	}
	return lower || upper
}
