// Package secrets finds credentials and personal data in text with rules from package rules:
// a one-pass keyword pre-filter (Aho-Corasick) picks the lines each rule's RE2 expression
// runs on, and entropy, allowlists and a placeholder check drop what is not a secret.
// It owns the Finding model, masking, fingerprints, redaction and the SARIF writer; the
// full secret never leaves this package.
package secrets

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/zeebo/blake3"

	"github.com/repoprep/repoprep/rules"
)

// Finding is one secret in one content. It holds the secret's position and a masked form,
// never the secret itself.
type Finding struct {
	Line        int    `json:"line"`   // 1-based; 0 for a secret in a file name or link target
	Column      int    `json:"column"` // 1-based, in Unicode code points
	Rule        string `json:"rule"`
	Description string `json:"description"`
	Kind        string `json:"kind"`        // rules.KindCredential or rules.KindPII
	Severity    string `json:"severity"`    // high, medium or low
	Match       string `json:"match"`       // masked: a short prefix, an ellipsis and the length, e.g. AKIA…(20)
	Fingerprint string `json:"fingerprint"` // rule id and a keyed hash of the secret; see fingerprint
	// Acknowledged: the user opted in to inline markers (WithInlineAcks) and the
	// finding's line carries one in a comment after it. The value is masked all the
	// same; reports say so and --fail-on does not count it.
	Acknowledged bool  `json:"acknowledged,omitempty"`
	Start        int64 `json:"-"` // byte offsets of what is masked in the content, for Redact
	End          int64 `json:"-"`
}

// hit is a Finding with the values the cross-file pass must mask wherever they occur: the
// secret, and whatever was masked with it. It stays inside this package.
type hit struct {
	Finding
	values [][]byte
}

// Scanner runs a fixed rule set; it is immutable after New and safe for concurrent use.
// Its compiled rules may be shared with other Scanners (Rules.Scanner); its
// fingerprint key and options are its own.
type Scanner struct {
	*compiled
	fpKeyed *blake3.Hasher
	// inlineAcks: an inline marker acknowledges a finding (WithInlineAcks).
	inlineAcks bool
}

// Rules is a rule set compiled once (Compile) for any number of Scanners, each
// with its own fingerprint key and options: compiling the default rules costs
// more than a small run's whole scan. Immutable and safe for concurrent use.
type Rules struct{ c *compiled }

// compiled is what a Scanner shares with every other Scanner of the same Rules:
// read-only after Compile but for winPool, which is safe for concurrent use.
type compiled struct {
	rules  []rule
	kw     *dfa    // the keywords, ASCII case folded
	byKw   [][]int // keyword (automaton pattern) index -> indexes of the rules it gates
	always []int   // rules without keywords: they run over the whole content

	winPool sync.Pool // *windowSet, for windows
}

// rule is a compiled rules.SecretRule.
type rule struct {
	id, desc       string
	kind, severity string
	re             *lazyRegexp
	gate           gate // skips the windows in which re cannot match
	group          int
	entropy        float64
	multiline      bool
	end            *lazyRegexp // closing marker of a block rule; nil otherwise
	decode         string      // "base64" or ""
	decoded        *lazyRegexp
	assignment     bool
	key            *lazyRegexp // the assigned key must match; nil for any
	maxLen         int         // most bytes the regex can match; -1 when unbounded
	stopWords      [][]byte    // lower-case
	allowRes       []*lazyRegexp
	allowPaths     []*lazyRegexp
	allowPathGates []gate // allowPaths' gates: every path is tested, few are allowed
	allowKeys      []*lazyRegexp
	placeholders   bool
	guessable      bool // a credential rule that placeholders apply to: commonValue drops defaults
}

// Option adjusts a Scanner made by New.
type Option func(*Scanner) error

// WithFingerprintKey keys the fingerprint hash with a secret of the caller's, so nobody
// without the key can test a guess (a phone number, an IP) against a fingerprint.
func WithFingerprintKey(key []byte) Option {
	return func(s *Scanner) error { return s.setFingerprintKey(key) }
}

// WithInlineAcks lets an inline marker (AckMarker, a whole word in a comment after the
// finding on its own line) acknowledge that one finding: it is still masked and
// reported, marked acknowledged. Only the user's command line turns it on: the scanned
// tree can never change what is masked.
func WithInlineAcks() Option {
	return func(s *Scanner) error { s.inlineAcks = true; return nil }
}

// fingerprintContext is the BLAKE3 derive-key context; change the version to change every
// fingerprint at once.
const fingerprintContext = "repoprep 2025 secret fingerprint v1"

// New compiles rs (already merged and validated by package rules) into a Scanner:
// Compile, then Rules.Scanner.
func New(rs []rules.SecretRule, opts ...Option) (*Scanner, error) {
	c, err := Compile(rs)
	if err != nil {
		return nil, err
	}
	return c.Scanner(opts...)
}

// Scanner returns a Scanner of the compiled rules with its own options. It is cheap:
// nothing is compiled. Safe for concurrent use.
func (c *Rules) Scanner(opts ...Option) (*Scanner, error) {
	s := &Scanner{compiled: c.c}
	if err := s.setFingerprintKey(nil); err != nil {
		return nil, err
	}
	for _, opt := range opts {
		if err := opt(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Compile validates rs (with package rules' messages) and prepares each of their
// regular expressions, to be compiled once, when first used (lazyRegexp). The regex's
// parse from validation serves its analysis.
func Compile(rs []rules.SecretRule) (*Rules, error) {
	s := &compiled{}
	kwIndex := map[string]int{}
	var kws []string
	for i, r := range rs {
		parsed, err := r.Check()
		if err != nil {
			return nil, err
		}
		cr := rule{
			id: r.ID, desc: r.Description, kind: r.Kind, severity: r.Severity,
			re:           newLazyRegexp(r.Regex), // Check parsed it
			gate:         newGate(r.Regex),
			group:        r.SecretGroup,
			entropy:      r.Entropy,
			multiline:    r.Multiline,
			decode:       r.Decode,
			assignment:   r.Assignment,
			placeholders: !r.Allow.NoPlaceholders,
		}
		if cr.kind == "" {
			cr.kind = rules.KindCredential
		}
		cr.guessable = cr.placeholders && cr.kind == rules.KindCredential
		if cr.severity == "" {
			cr.severity = rules.SeverityHigh
			if cr.kind == rules.KindPII {
				cr.severity = rules.SeverityLow
			}
		}
		if r.End != "" {
			cr.end = newLazyRegexp(r.End)
		}
		if r.Decoded != "" {
			cr.decoded = newLazyRegexp(r.Decoded)
		}
		if r.Key != "" {
			cr.key = newLazyRegexp(r.Key)
		}
		for _, p := range r.Allow.Keys {
			cr.allowKeys = append(cr.allowKeys, newLazyRegexp(p))
		}
		cr.maxLen = maxMatchBytes(parsed)
		if cr.desc == "" {
			cr.desc = r.ID
		}
		for _, w := range r.Allow.StopWords {
			cr.stopWords = append(cr.stopWords, bytes.ToLower([]byte(w)))
		}
		for _, p := range r.Allow.Regexes {
			cr.allowRes = append(cr.allowRes, newLazyRegexp(p))
		}
		for _, p := range r.Allow.Paths {
			cr.allowPaths = append(cr.allowPaths, newLazyRegexp(p))
			cr.allowPathGates = append(cr.allowPathGates, newGate(p))
		}
		if kws := lowerAll(r.Keywords); ledByKeywords(r.Regex, kws) {
			cr.gate.anchor(r.Regex)
		}
		s.rules = append(s.rules, cr)
		if len(r.Keywords) == 0 {
			s.always = append(s.always, i)
			continue
		}
		for _, kw := range lowerAll(r.Keywords) {
			k, ok := kwIndex[kw]
			if !ok {
				k = len(kws)
				kwIndex[kw] = k
				kws = append(kws, kw)
				s.byKw = append(s.byKw, nil)
			}
			if !slices.Contains(s.byKw[k], i) {
				s.byKw[k] = append(s.byKw[k], i)
			}
		}
	}
	if len(kws) > 0 {
		s.kw = newDFA(kws, true)
	}
	return &Rules{c: s}, nil
}

func (s *Scanner) setFingerprintKey(secret []byte) error {
	var key [32]byte
	blake3.DeriveKey(fingerprintContext, secret, key[:])
	h, err := blake3.NewKeyed(key[:])
	if err != nil {
		return fmt.Errorf("fingerprint key: %w", err)
	}
	s.fpKeyed = h
	return nil
}

// AllowsPath reports whether rule ruleID's path allowlist covers path (slash-separated), so
// a caller that scanned a content shared by several paths can drop findings per path.
func (s *Scanner) AllowsPath(ruleID, path string) bool {
	for i := range s.rules {
		if s.rules[i].id == ruleID {
			return s.rules[i].pathAllowed(path)
		}
	}
	return false
}

func (r *rule) pathAllowed(path string) bool {
	for i, re := range r.allowPaths {
		if (!useGates || r.allowPathGates[i].mayMatchString(path)) && re.MatchString(path) {
			return true
		}
	}
	return false
}

// Scan returns the findings in content sorted by offset. Path allowlists don't apply (there
// is no path) and values are judged without knowing the file's format; ScanContent and
// ScanFile know both. Safe for concurrent use.
func (s *Scanner) Scan(content []byte) []Finding {
	return s.ScanContent(content, "")
}

// ScanContent is Scan for a content held at path (slash-separated, "" for none): the path
// chooses how assigned values are read (a bare word is a value in YAML and an identifier
// in Go) and which path allowlists apply.
func (s *Scanner) ScanContent(content []byte, path string) []Finding {
	cands, _ := s.candidates(context.Background(), content, s.pathSkips(path), path)
	return stripHits(s.findings(content, cands, 1, 0))
}

func stripHits(hs []hit) []Finding {
	if len(hs) == 0 {
		return nil
	}
	out := make([]Finding, len(hs))
	for i, h := range hs {
		out[i] = h.Finding
	}
	return out
}

// span is a stretch of content, [start, end).
type span struct{ start, end int }

// candidate is a match that passed every filter. After resolveOverlaps, span is what is
// masked (the union of every candidate it absorbed) and secret the winning rule's secret;
// others holds the absorbed candidates' secrets, which the cross-file pass masks too.
type candidate struct {
	span
	secret span
	rule   int // index into s.rules, which is also its priority
	others []span
}

// candidates runs the pre-filter and the rules over content and resolves overlaps. skip,
// when not nil, drops whole rules; path (slash-separated, "" for none) gives the
// content's format and the words of its name (commonValue). open, when not nil, is a
// block rule's opening marker whose closing marker is not in content: a streaming caller
// looks for it in what follows.
//
// It gives up (with what it has) once ctx is done; the caller checks ctx.
func (s *Scanner) candidates(ctx context.Context, content []byte, skip []bool, path string) (cands []candidate, open *openBlock) {
	f := formatOf(path)
	set := s.windowsFor(content, skip)
	defer s.putWindows(set)
	wins := set.wins
	for ri := range s.rules {
		if len(wins[ri]) == 0 || (skip != nil && skip[ri]) {
			continue
		}
		r := &s.rules[ri]
		if r.end != nil {
			bc, bo := s.blocks(content, wins[ri], ri)
			cands = append(cands, bc...)
			if bo != nil && (open == nil || bo.start < open.start) {
				open = bo
			}
			continue
		}
		for wi, w := range wins[ri] {
			if wi%64 == 0 && ctx.Err() != nil {
				return cands, open
			}
			text := content[w.start:w.end]
			if useGates && !s.gateOpen(set, ri, w, content) {
				continue
			}
			for _, m := range r.re.FindAllSubmatchIndex(text, -1) {
				if (w.cutStart && m[0] == 0) || (w.cutEnd && m[1] == len(text)) {
					continue // may be a piece of something longer beyond the window
				}
				gs, ge := r.secretSpan(m)
				if gs < 0 || ge <= gs {
					continue
				}
				gs, ge = gs+w.start, ge+w.start
				if r.assignment && !r.judgeAssignment(content, w.start+m[0], gs, ge, f) {
					continue
				}
				if r.decode != "" && !r.decodes(content[gs:ge]) {
					continue
				}
				if !r.isSecret(content[gs:ge]) || r.guessable && commonValue(content, gs, ge, path) {
					continue
				}
				cands = append(cands, candidate{span: span{gs, ge}, secret: span{gs, ge}, rule: ri})
			}
		}
	}
	return resolveOverlaps(cands), open
}

// secretSpan picks the secret out of a match: the rule's group, or by default the first
// non-empty group, or the whole match.
func (r *rule) secretSpan(m []int) (int, int) {
	if r.group > 0 {
		return m[2*r.group], m[2*r.group+1]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

// isSecret applies the rule's entropy floor and allowlists to one candidate secret.
func (r *rule) isSecret(secret []byte) bool {
	if r.entropy > 0 && shannon(secret) < r.entropy {
		return false
	}
	if len(r.stopWords) > 0 {
		lower := bytes.ToLower(secret)
		for _, w := range r.stopWords {
			if bytes.Contains(lower, w) {
				return false
			}
		}
	}
	for _, re := range r.allowRes {
		if re.Match(secret) {
			return false
		}
	}
	return !(r.placeholders && isPlaceholder(secret))
}

// resolveOverlaps merges candidates that overlap into one: the rule listed first names it
// (its secret is masked in the report and fingerprinted), and the union of their spans is
// what gets masked, so "wang.138..." under a password rule and a phone rule is masked
// whole. It returns the merged candidates sorted by offset, pairwise disjoint.
func resolveOverlaps(cands []candidate) []candidate {
	if len(cands) < 2 {
		return cands
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(b.end, a.end), cmp.Compare(a.rule, b.rule))
	})
	out := cands[:1]
	for _, c := range cands[1:] {
		last := &out[len(out)-1]
		if c.start >= last.end {
			out = append(out, c)
			continue
		}
		if c.rule < last.rule {
			last.others = append(last.others, last.secret)
			last.secret, last.rule = c.secret, c.rule
		} else {
			last.others = append(last.others, c.secret)
		}
		last.others = append(last.others, c.others...)
		last.end = max(last.end, c.end)
	}
	return out
}

// findings turns sorted candidates into hits. line0 is the line number of content[0] and
// base its offset in a larger file. Nothing in content can drop a candidate: an inline
// marker (acknowledges) at most marks one as acknowledged, when the scanner was made
// WithInlineAcks.
func (s *Scanner) findings(content []byte, cands []candidate, line0 int, base int64) []hit {
	if len(cands) == 0 {
		return nil
	}
	out := make([]hit, 0, len(cands))
	line, lineStart, pos := line0, 0, 0
	for i, c := range cands {
		seg := content[pos:c.start]
		if n := bytes.Count(seg, nl); n > 0 {
			line += n
			lineStart = pos + bytes.LastIndexByte(seg, '\n') + 1
		}
		pos = c.start
		lineEnd := len(content)
		if i := bytes.IndexByte(content[c.start:], '\n'); i >= 0 {
			lineEnd = c.start + i
		}
		// The marker speaks for the one finding on its line: not for a line
		// holding two, nor for a span that runs past its line (a key block).
		alone := (i == 0 || cands[i-1].end <= lineStart) && (i+1 == len(cands) || cands[i+1].start > lineEnd)
		ack := s.inlineAcks && alone && c.end <= lineEnd && acknowledges(content[c.end:lineEnd])
		r := &s.rules[c.rule]
		secret := content[c.secret.start:c.secret.end]
		h := hit{Finding: Finding{
			Line:         line,
			Column:       utf8.RuneCount(content[lineStart:c.start]) + 1,
			Rule:         r.id,
			Description:  r.desc,
			Kind:         r.kind,
			Severity:     r.severity,
			Match:        mask(secret),
			Fingerprint:  s.fingerprint(r.id, secret),
			Start:        base + int64(c.start),
			End:          base + int64(c.end),
			Acknowledged: ack,
		}}
		h.values = appendValues(h.values, secret)
		if c.secret != c.span {
			h.values = appendValues(h.values, content[c.start:c.end])
		}
		for _, o := range c.others {
			h.values = appendValues(h.values, content[o.start:o.end])
		}
		out = append(out, h)
	}
	return out
}

var nl = []byte{'\n'}

// fingerprint names a secret stably across runs and files without revealing it: the rule
// id and the first 64 bits of a BLAKE3 keyed hash of rule id and secret.
func (s *Scanner) fingerprint(ruleID string, secret []byte) string {
	h := s.fpKeyed.Clone()
	h.WriteString(ruleID)
	h.Write([]byte{0})
	h.Write(secret)
	var sum [8]byte
	h.Digest().Read(sum[:])
	return fmt.Sprintf("%s:%x", ruleID, sum)
}
